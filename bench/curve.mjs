// Curve25519: wacore-wasm (both builds) next to libsignal-node 6.0.0, whatsapp-rust-bridge 0.5.5
// and node:crypto (native), interleaved.   node bench/curve.mjs [--quick] [--rounds N] [--json]
import nodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { report, run } from './harness.mjs';

const require = createRequire(import.meta.url);
const ls = require('libsignal/src/curve');
const msg = new Uint8Array(100).fill(3);

// Implementations with libsignal-node's curve API (keys as 33-byte 0x05 public keys).
const signalStyle = (lib) => {
  const a = lib.generateKeyPair();
  const b = lib.generateKeyPair();
  const sig = lib.calculateSignature(a.privKey, msg);
  return {
    'key generation': () => lib.generateKeyPair(),
    'X25519 agreement': () => lib.calculateAgreement(b.pubKey, a.privKey),
    'XEdDSA sign (100 B)': () => lib.calculateSignature(a.privKey, msg),
    'XEdDSA verify (100 B)': () => lib.verifySignature(a.pubKey, msg, sig),
  };
};

const impls = {};
for (const variant of ['scalar', 'simd']) impls[`wacore ${variant}`] = signalStyle(await load({ variant }));
impls['whatsapp-rust-bridge 0.5.5'] = signalStyle(bridge);
impls['libsignal-node 6.0.0'] = signalStyle({ ...ls, calculateSignature: (k, m) => ls.calculateSignature(k, Buffer.from(m)), verifySignature: (p, m, s) => ls.verifySignature(p, Buffer.from(m), s) });
{
  const a = nodeCrypto.generateKeyPairSync('x25519');
  const b = nodeCrypto.generateKeyPairSync('x25519');
  impls['node:crypto (native)'] = {
    'key generation': () => nodeCrypto.generateKeyPairSync('x25519'),
    'X25519 agreement': () => nodeCrypto.diffieHellman({ privateKey: a.privateKey, publicKey: b.publicKey }),
  };
}

report('Curve25519', await run(impls));
