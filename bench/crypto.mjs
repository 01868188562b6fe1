// Symmetric primitives: wacore-wasm (both builds) next to node:crypto (native, AES-NI), @noble/ciphers
// and @noble/hashes (pure JS), libsodium-wrappers (wasm; SHA-512 only, see bench/ops.mjs) and
// whatsapp-rust-bridge 0.5.5 (GCM only through its Noise session, which also hashes each ciphertext
// into the handshake hash), interleaved.
//   node bench/crypto.mjs [--quick] [--rounds N] [--json]
import nodeCrypto from 'node:crypto';
import { cbc, ctr, gcm } from '@noble/ciphers/aes.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import sodium from 'libsodium-wrappers';
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { QUICK, report, run } from './harness.mjs';
import { NAMES, bridgeSymmetric, nobleSymmetric, sodiumSymmetric, symmetricInputs, wacoreSymmetric } from './ops.mjs';

await sodium.ready;
const i = symmetricInputs(await load(), QUICK);
const { key, iv, nonce } = i;
const KiB = i.small.length;

const impls = {};
for (const variant of ['scalar', 'simd']) impls[NAMES.wacore(variant)] = wacoreSymmetric(await load({ variant }), i);
const cbcEncrypt = (d) => {
  const c = nodeCrypto.createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([c.update(d), c.final()]);
};
impls['node:crypto (native)'] = {
  [i.op.gcmSeal]: () => {
    const c = nodeCrypto.createCipheriv('aes-256-gcm', key, nonce);
    return Buffer.concat([c.update(i.small), c.final(), c.getAuthTag()]);
  },
  [i.op.gcmOpen]: () => {
    const d = nodeCrypto.createDecipheriv('aes-256-gcm', key, nonce);
    d.setAuthTag(i.sealedSmall.subarray(KiB));
    return Buffer.concat([d.update(i.sealedSmall.subarray(0, KiB)), d.final()]);
  },
  [i.op.cbcDecrypt]: () => {
    const d = nodeCrypto.createDecipheriv('aes-256-cbc', key, iv);
    return Buffer.concat([d.update(i.cbcBig), d.final()]);
  },
  [i.op.cbcEncrypt]: () => cbcEncrypt(i.big),
  [i.op.ctr]: () => nodeCrypto.createCipheriv('aes-256-ctr', key, iv).update(i.big),
  [i.op.sha256]: () => nodeCrypto.createHash('sha256').update(i.big).digest(),
  [i.op.sha512]: () => nodeCrypto.createHash('sha512').update(i.big).digest(),
  [i.op.hmac]: () => nodeCrypto.createHmac('sha256', key).update(i.big).digest(),
  [i.op.hkdf]: () => nodeCrypto.hkdfSync('sha256', i.ikm, new Uint8Array(0), i.info, 112),
};
impls[NAMES.noble] = nobleSymmetric({ gcm, cbc, ctr, hmac, hkdf, sha256, sha512 }, i);
impls[NAMES.sodium] = sodiumSymmetric(sodium, i);
impls[NAMES.bridge] = bridgeSymmetric(bridge, i);

report('Symmetric primitives', await run(impls));
