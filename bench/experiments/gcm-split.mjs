// Where a small AES-256-GCM seal goes in wasm: the seal against AES-CTR over the same bytes (the
// keystream with its per-call key expansion); the difference is GHASH and the tag (docs/crypto.md).
// The two interleaved by the harness (bench/harness.mjs); the difference is of their medians.
//
//   node bench/experiments/gcm-split.mjs [--variant simd|scalar] [--bytes N] [--rounds N] [--quick]
import { load } from '../../npm/index.mjs';
import { takeOption } from '../dist.mjs';
import { SCRIPT_ARGS, fmt, report, run } from '../harness.mjs';

const args = [...SCRIPT_ARGS];
const api = await load({ variant: takeOption(args, '--variant', 'simd') });
const n = Number(takeOption(args, '--bytes', 1024));
const key = new Uint8Array(32).fill(1);
const data = new Uint8Array(n);
const wasm = { native: false };
const op = `${n} B, ${api.variant} build`;
const rows = await run({
  'AES-256-GCM seal': { [op]: () => api.aesGcmSeal(key, new Uint8Array(12), data, null, wasm) },
  'AES-256-CTR (the keystream alone)': { [op]: () => api.aesCtr(key, new Uint8Array(16), data, wasm) },
});
report('AES-256-GCM seal split', rows);
console.log(`GHASH and the tag (the difference of the medians): ${fmt(rows[0].median - rows[1].median)}`);
