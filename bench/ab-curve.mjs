// Side by side, in one process: the curve operations (key generation from a private key, X25519
// agreement, XEdDSA signing and verification with one key) on builds in several dist directories,
// rounds interleaved A B C A B C … so that machine load falls on all alike. For before/after checks
// of a change to the curve code; bench/curve.mjs compares with the peers.
//
//   node bench/ab-curve.mjs [--variant simd|scalar] [--rounds N] DIR [DIR ...]
//
// Each round times a batch of calls; the first 5 rounds are warm-up. Prints each DIR's median per
// call and its ratio to the first DIR's.
import { resolve } from 'node:path';
import { loaderFor, takeOption } from './dist.mjs';

const args = process.argv.slice(2);
const option = (flag, dflt) => takeOption(args, flag, dflt);
const variant = option('--variant', 'simd');
const rounds = Number(option('--rounds', '31'));
if (args.length === 0 || !Number.isInteger(rounds) || rounds < 6) {
  throw new Error('usage: node bench/ab-curve.mjs [--variant simd|scalar] [--rounds N >= 6] DIR [DIR ...]');
}
const dirs = args.map((d) => resolve(d));
const apis = [];
for (const dir of dirs) apis.push(await (await import(loaderFor(dir))).load({ variant }));

const { privKey, pubKey } = apis[0].generateKeyPair();
const peer = apis[0].generateKeyPair().pubKey;
const message = new Uint8Array(100);
const signature = apis[0].calculateSignature(privKey, message);
// [operation, calls per round, call]
const OPS = [
  ['key generation (getPublicFromPrivateKey)', 400, (api) => api.getPublicFromPrivateKey(privKey)],
  ['X25519 agreement', 150, (api) => api.calculateAgreement(peer, privKey)],
  ['XEdDSA sign, 100 B', 400, (api) => api.calculateSignature(privKey, message)],
  ['XEdDSA verify, 100 B', 300, (api) => api.verifySignature(pubKey, message, signature)],
];

console.log(`| operation (${variant}) | ${dirs.map((d, i) => `${i ? `DIR ${i + 1}` : 'DIR 1'} µs`).join(' | ')} | ratio to DIR 1 |`);
console.log(`|---|${dirs.map(() => '---|').join('')}---|`);
for (const [name, calls, call] of OPS) {
  const times = apis.map(() => []);
  for (let r = 0; r < rounds; r++) {
    apis.forEach((api, i) => {
      const t = performance.now();
      for (let j = 0; j < calls; j++) call(api);
      if (r >= 5) times[i].push(((performance.now() - t) / calls) * 1000);
    });
  }
  const medians = times.map((x) => x.sort((a, b) => a - b)[x.length >> 1]);
  console.log(`| ${name} | ${medians.map((m) => m.toFixed(2)).join(' | ')} | ${medians.slice(1).map((m) => (m / medians[0]).toFixed(3)).join(', ') || '1'} |`);
}
console.log(`\nDIR 1 = ${dirs[0]}${dirs.slice(1).map((d, i) => `, DIR ${i + 2} = ${d}`).join('')}`);
