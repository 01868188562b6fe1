// Where a small AES-256-GCM seal goes in wasm: the seal against AES-CTR over the same bytes (the
// keystream with its per-call key expansion); the difference is GHASH and the tag (docs/crypto.md).
// Interleaved rounds of 3,000 calls, medians.
//
//   node bench/gcm-split.mjs [--variant simd|scalar] [--bytes N]
import { load } from '../npm/index.mjs';

const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d);
const api = await load({ variant: opt('--variant', 'simd') });
const n = Number(opt('--bytes', 1024));
const key = new Uint8Array(32).fill(1);
const data = new Uint8Array(n);
const wasm = { native: false };
const ops = [
  [`AES-256-GCM seal ${n} B`, () => api.aesGcmSeal(key, new Uint8Array(12), data, null, wasm)],
  [`AES-256-CTR ${n} B`, () => api.aesCtr(key, new Uint8Array(16), data, wasm)],
];
const times = ops.map(() => []);
for (let r = 0; r < 9; r++) {
  ops.forEach(([, f], i) => {
    for (let k = 0; k < 500; k++) f();
    const t = performance.now();
    for (let k = 0; k < 3000; k++) f();
    times[i].push((performance.now() - t) / 3);
  });
}
const med = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
const [gcm, ctr] = times.map(med);
console.log(`| ${api.variant} build | µs per call |\n|---|---|`);
console.log(`| ${ops[0][0]} | ${gcm.toFixed(2)} |\n| ${ops[1][0]} | ${ctr.toFixed(2)} |\n| GHASH and the tag (the difference) | ${(gcm - ctr).toFixed(2)} |`);
