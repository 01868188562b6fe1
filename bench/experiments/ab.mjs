// Side by side, in one process: the same AES bulk operation on builds in several dist directories
// (a dist built from another commit, or npm/dist), interleaved by the harness (bench/harness.mjs)
// so machine load falls on all alike. For quick before/after checks of a change to the AES code;
// the full comparison with peers is bench/crypto.mjs.
//
//   node bench/experiments/ab.mjs [--variant simd|scalar] [--rounds N] [--quick] [--op cbc-encrypt|cbc-decrypt|ctr] DIR [DIR ...]
//
// Each call is on 1 MiB. Prints the harness's table (median, min–max, × fastest) per DIR.
import { randomBytes } from 'node:crypto';
import { legend, loadBuilds, takeOption } from '../dist.mjs';
import { SCRIPT_ARGS, report, run } from '../harness.mjs';

const args = [...SCRIPT_ARGS];
const variant = takeOption(args, '--variant', 'simd');
const op = takeOption(args, '--op', 'cbc-encrypt');
// The wasm path ({ native: false }; packages before it ignore the argument).
const WASM = { native: false };
const OPS = {
  'cbc-encrypt': (api, k, iv, d) => api.aesCbcEncrypt(k, iv, d, WASM),
  'cbc-decrypt': (api, k, iv, d) => api.aesCbcDecrypt(k, iv, d, WASM),
  ctr: (api, k, iv, d) => api.aesCtr(k, iv, d, WASM),
};
if (!OPS[op] || args.length === 0) {
  console.error('usage: node bench/experiments/ab.mjs [--variant simd|scalar] [--rounds N] [--quick] [--op cbc-encrypt|cbc-decrypt|ctr] DIR [DIR ...]');
  process.exit(2);
}
const builds = await loadBuilds(args, { variant });
const key = randomBytes(32), iv = randomBytes(16);
const data = op === 'cbc-decrypt' ? builds[0].api.aesCbcEncrypt(key, iv, randomBytes((1 << 20) - 16)) : randomBytes(1 << 20);
const label = `${variant} ${op} 1 MiB`;
const impls = Object.fromEntries(builds.map((b) => [b.name, { [label]: () => OPS[op](b.api, key, iv, data) }]));
report('AES, builds side by side', await run(impls));
console.log(legend(builds));
