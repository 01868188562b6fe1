// What the verifying-key cache and the comb (docs/crypto.md) do per key: the time of each key's 1st,
// 2nd, 3rd and 4th verification, over fresh keys; and a round-robin over more keys than the cache
// keeps (every verification a miss). With several DIRs (checkouts, each with npm/dist built), they
// run in one process, interleaved.
//
//   node bench/verify-keys.mjs [--variant simd|scalar] [--keys N] [DIR ...]   (default DIR: .)
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d);
const variant = opt('--variant', 'simd');
const keys = Number(opt('--keys', 300));
const dirs = args.filter((a, i) => !a.startsWith('--') && !['--variant', '--keys'].includes(args[i - 1]));
if (dirs.length === 0) dirs.push(fileURLToPath(new URL('..', import.meta.url)));
const apis = [];
for (const d of dirs) apis.push(await (await import(pathToFileURL(resolve(d, 'npm/index.mjs')).href)).load({ variant }));
const msg = new Uint8Array(100);

console.log(`| ${variant} build | 1st / 2nd / 3rd / 4th verification of a key, µs (mean of ${keys} keys) | 100 keys in turn, µs per verification (median of 5 passes) |`);
console.log('|---|---|---|');
const nth = apis.map(() => [0, 0, 0, 0]);
const turns = apis.map(() => []);
for (let round = 0; round < keys; round++) {
  apis.forEach((api, a) => {
    const k = api.generateKeyPair();
    const sig = api.calculateSignature(k.privKey, msg);
    for (let n = 0; n < 4; n++) {
      const t = performance.now();
      if (!api.verifySignature(k.pubKey, msg, sig)) throw new Error('a good signature failed');
      nth[a][n] += performance.now() - t;
    }
  });
}
apis.forEach((api, a) => {
  const set = [];
  for (let i = 0; i < 100; i++) {
    const k = api.generateKeyPair();
    set.push([k.pubKey, api.calculateSignature(k.privKey, msg)]);
  }
  for (let pass = 0; pass < 5; pass++) {
    const t = performance.now();
    for (const [pub, sig] of set) if (!api.verifySignature(pub, msg, sig)) throw new Error('a good signature failed');
    turns[a].push(((performance.now() - t) * 1000) / set.length);
  }
});
const med = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
apis.forEach((_, a) => {
  console.log(`| ${dirs[a]} | ${nth[a].map((x) => ((x / keys) * 1000).toFixed(1)).join(' / ')} | ${med(turns[a]).toFixed(1)} |`);
});
