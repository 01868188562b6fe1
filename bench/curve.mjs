// Curve25519 benchmark: wacore-wasm scalar and SIMD builds next to libsignal-node 6.0.0 and
// node:crypto, interleaved (A B C A B C …) so machine noise hits all alike. Prints median ns/op,
// min–max and the ratio to the fastest, as Markdown; `--json` prints JSON too.
//
//   node bench/curve.mjs [--rounds N] [--quick] [--json]
import { createRequire } from 'node:module';
import nodeCrypto from 'node:crypto';
import { load } from '../npm/index.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const rounds = Number(args[args.indexOf('--rounds') + 1]) || (quick ? 3 : 31);
const batch = quick ? 5 : 200;

const require = createRequire(import.meta.url);
const ls = require('libsignal/src/curve');

const impls = {};
for (const v of ['scalar', 'simd']) {
  const api = await load({ variant: v });
  const a = api.generateKeyPair();
  const b = api.generateKeyPair();
  const msg = new Uint8Array(100).fill(3);
  const sig = api.calculateSignature(a.privKey, msg);
  impls[`wacore ${v}`] = {
    'key generation': () => api.generateKeyPair(),
    'X25519 agreement': () => api.calculateAgreement(b.pubKey, a.privKey),
    'XEdDSA sign (100 B)': () => api.calculateSignature(a.privKey, msg),
    'XEdDSA verify (100 B)': () => api.verifySignature(a.pubKey, msg, sig),
  };
}
{
  const a = ls.generateKeyPair();
  const b = ls.generateKeyPair();
  const msg = Buffer.alloc(100, 3);
  const sig = ls.calculateSignature(a.privKey, msg);
  impls['libsignal-node 6.0.0'] = {
    'key generation': () => ls.generateKeyPair(),
    'X25519 agreement': () => ls.calculateAgreement(b.pubKey, a.privKey),
    'XEdDSA sign (100 B)': () => ls.calculateSignature(a.privKey, msg),
    'XEdDSA verify (100 B)': () => ls.verifySignature(a.pubKey, msg, sig),
  };
}
{
  const a = nodeCrypto.generateKeyPairSync('x25519');
  const b = nodeCrypto.generateKeyPairSync('x25519');
  impls['node:crypto (native)'] = {
    'key generation': () => nodeCrypto.generateKeyPairSync('x25519'),
    'X25519 agreement': () => nodeCrypto.diffieHellman({ privateKey: a.privateKey, publicKey: b.publicKey }),
  };
}

const ops = [...new Set(Object.values(impls).flatMap((o) => Object.keys(o)))];
const results = [];
for (const op of ops) {
  const runners = Object.entries(impls).filter(([, o]) => o[op]);
  const samples = Object.fromEntries(runners.map(([name]) => [name, []]));
  for (const [, o] of runners) for (let i = 0; i < batch; i++) o[op](); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const [name, o] of runners) {
      const fn = o[op];
      const t = process.hrtime.bigint();
      for (let i = 0; i < batch; i++) fn();
      samples[name].push(Number(process.hrtime.bigint() - t) / batch);
    }
  }
  const rows = runners.map(([name]) => {
    const s = samples[name].sort((x, y) => x - y);
    return { op, impl: name, median: s[s.length >> 1], min: s[0], max: s[s.length - 1] };
  });
  const best = Math.min(...rows.map((r) => r.median));
  for (const r of rows) results.push({ ...r, ratio: r.median / best });
}

const us = (ns) => (ns / 1000).toFixed(1);
console.log(`Node ${process.versions.node}, ${rounds} interleaved rounds of ${batch} calls; µs/op\n`);
console.log('| operation | implementation | median µs | min–max µs | × fastest |');
console.log('|---|---|---|---|---|');
for (const r of results) {
  console.log(`| ${r.op} | ${r.impl} | ${us(r.median)} | ${us(r.min)}–${us(r.max)} | ${r.ratio.toFixed(2)} |`);
}
if (args.includes('--json')) console.log(JSON.stringify(results, null, 1));
