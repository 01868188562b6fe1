// What the verifying-key cache and the comb (docs/crypto.md) do per key: the time of each key's 1st,
// 2nd, 3rd and 4th verification, over fresh keys (a position in a sequence of calls, not a batch:
// timed one call at a time with the harness's clock); and, interleaved by the harness, a round-robin
// over more keys than the cache keeps (every verification a miss). With several DIRs (checkouts,
// each with npm/dist built), they run in one process, interleaved.
//
//   node bench/experiments/verify-keys.mjs [--variant simd|scalar] [--keys N] [--rounds N] [--quick] [DIR ...]   (default DIR: .)
import { fileURLToPath } from 'node:url';
import { legend, loadBuilds, takeOption } from '../dist.mjs';
import { QUICK, SCRIPT_ARGS, now, report, run } from '../harness.mjs';

const args = [...SCRIPT_ARGS];
const variant = takeOption(args, '--variant', 'simd');
const keys = Number(takeOption(args, '--keys', QUICK ? 10 : 300));
if (args.length === 0) args.push(fileURLToPath(new URL('../..', import.meta.url)));
const builds = await loadBuilds(args, { variant, checkouts: true });
const msg = new Uint8Array(100);
const verify = (api, pub, sig) => {
  if (!api.verifySignature(pub, msg, sig)) throw new Error('a good signature failed');
};

// The 1st to 4th verification of each fresh key, the builds in turn key by key.
const nth = builds.map(() => [0, 0, 0, 0]);
for (let k = 0; k < keys; k++) {
  builds.forEach(({ api }, b) => {
    const pair = api.generateKeyPair();
    const sig = api.calculateSignature(pair.privKey, msg);
    for (let n = 0; n < 4; n++) {
      const t = now();
      verify(api, pair.pubKey, sig);
      nth[b][n] += now() - t;
    }
  });
}
console.log(`| ${variant} build | 1st / 2nd / 3rd / 4th verification of a key, µs (mean of ${keys} fresh keys) |`);
console.log('|---|---|');
builds.forEach((b, i) => console.log(`| ${b.name} | ${nth[i].map((ns) => (ns / keys / 1e3).toFixed(1)).join(' / ')} |`));
console.log('');

// 100 keys in turn: each verification with another key than the one before.
const inTurn = (api) => {
  const set = Array.from({ length: 100 }, () => {
    const k = api.generateKeyPair();
    return [k.pubKey, api.calculateSignature(k.privKey, msg)];
  });
  let i = 0;
  return () => verify(api, ...set[i++ % set.length]);
};
const impls = Object.fromEntries(builds.map((b) => [b.name, { 'verify 100 B, 100 keys in turn': inTurn(b.api) }]));
report(`Verification with keys that miss the cache (${variant} build)`, await run(impls));
console.log(legend(builds));
