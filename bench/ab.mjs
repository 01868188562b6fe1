// Side by side, in one process: the same AES bulk operation on builds in several dist directories
// (a dist built from another commit, or npm/dist), rounds interleaved A B C A B C … so machine load
// falls on all alike. For quick before/after checks of a change to the AES code; the full
// comparison with peers is bench/crypto.mjs.
//
//   node bench/ab.mjs [--variant simd|scalar] [--rounds N] [--op cbc-encrypt|cbc-decrypt|ctr] DIR [DIR ...]
//
// Each round is one call on 1 MiB; the first 5 rounds are warm-up. Prints median and min per DIR.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { loaderFor, takeOption } from './dist.mjs';

const args = process.argv.slice(2);
const option = (flag, dflt) => takeOption(args, flag, dflt);
const variant = option('--variant', 'simd');
const rounds = Number(option('--rounds', '25'));
const op = option('--op', 'cbc-encrypt');
// The wasm path ({ native: false }; packages before it ignore the argument).
const WASM = { native: false };
const OPS = {
  'cbc-encrypt': (api, k, iv, d) => api.aesCbcEncrypt(k, iv, d, WASM),
  'cbc-decrypt': (api, k, iv, d) => api.aesCbcDecrypt(k, iv, d, WASM),
  ctr: (api, k, iv, d) => api.aesCtr(k, iv, d, WASM),
};
if (!OPS[op] || args.length === 0 || !(rounds > 5)) {
  console.error('usage: node bench/ab.mjs [--variant simd|scalar] [--rounds N>5] [--op cbc-encrypt|cbc-decrypt|ctr] DIR [DIR ...]');
  process.exit(2);
}
const dirs = args.map((d) => resolve(d));
const apis = [];
for (const dir of dirs) {
  const { load } = await import(loaderFor(dir));
  const api = await load({ variant });
  if (api.variant !== variant) throw new Error(`${dir}: loaded ${api.variant}, not ${variant}`);
  apis.push(api);
}
const key = randomBytes(32), iv = randomBytes(16);
const data = op === 'cbc-decrypt' ? apis[0].aesCbcEncrypt(key, iv, randomBytes((1 << 20) - 16)) : randomBytes(1 << 20);
const times = dirs.map(() => []);
for (let r = 0; r < rounds; r++) {
  apis.forEach((api, i) => {
    const start = process.hrtime.bigint();
    OPS[op](api, key, iv, data);
    times[i].push(Number(process.hrtime.bigint() - start) / 1e6);
  });
}
dirs.forEach((dir, i) => {
  const t = times[i].slice(5).sort((a, b) => a - b);
  console.log(`${variant} ${op} 1 MiB  ${dir}: median ${t[t.length >> 1].toFixed(2)} ms, min ${t[0].toFixed(2)} ms`);
});
