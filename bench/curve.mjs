// Curve25519: wacore-wasm (both builds) next to libsignal-node 6.0.0, whatsapp-rust-bridge 0.5.5,
// @signalapp/libsignal-client (libsignal's Rust through N-API), @noble/curves, libsodium-wrappers,
// curve25519-js and node:crypto (native), interleaved. Sign and verify are XEdDSA, except the rows
// named Ed25519 (@noble/curves' and libsodium's signatures are Ed25519, which XEdDSA is built on but
// not the same: another key form and nonce).
//   node bench/curve.mjs [--quick] [--rounds N] [--json]
import nodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { PrivateKey } from '@signalapp/libsignal-client';
import * as c25519 from 'curve25519-js';
import sodium from 'libsodium-wrappers';
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { report, run } from './harness.mjs';
import { CURVE, NAMES, curve25519js, nobleCurves, signalCurve, sodiumCurves } from './ops.mjs';

const require = createRequire(import.meta.url);
const ls = require('libsignal/src/curve');
await sodium.ready;
const msg = new Uint8Array(100).fill(3);

const impls = {};
for (const variant of ['scalar', 'simd']) impls[NAMES.wacore(variant)] = signalCurve(await load({ variant }));
impls[NAMES.bridge] = signalCurve(bridge);
impls[NAMES.libsignalNode] = signalCurve({
  ...ls,
  calculateSignature: (k, m) => ls.calculateSignature(k, Buffer.from(m)),
  verifySignature: (p, m, s) => ls.verifySignature(p, Buffer.from(m), s),
});
{
  const a = PrivateKey.generate();
  const b = PrivateKey.generate().getPublicKey();
  const sig = a.sign(msg);
  const aPub = a.getPublicKey();
  impls[NAMES.libsignalClient] = {
    [CURVE.keygen]: () => {
      const k = PrivateKey.generate();
      return { privKey: k.serialize(), pubKey: k.getPublicKey().serialize() };
    },
    [CURVE.agree]: () => a.agree(b),
    [CURVE.sign]: () => a.sign(msg),
    [CURVE.verify]: () => aPub.verify(msg, sig),
  };
}
impls[NAMES.curve25519js] = curve25519js(c25519);
Object.assign(impls, nobleCurves({ x25519, ed25519 }), sodiumCurves(sodium));
{
  const a = nodeCrypto.generateKeyPairSync('x25519');
  const b = nodeCrypto.generateKeyPairSync('x25519');
  impls['node:crypto (native, KeyObjects)'] = {
    [CURVE.keygen]: () => nodeCrypto.generateKeyPairSync('x25519'),
    [CURVE.agree]: () => nodeCrypto.diffieHellman({ privateKey: a.privateKey, publicKey: b.publicKey }),
  };
}

report('Curve25519', await run(impls));
