// Symmetric primitives: wacore-wasm (both builds) next to node:crypto (native, AES-NI), @noble/ciphers
// and @noble/hashes (pure JS) and whatsapp-rust-bridge 0.5.5 (GCM only through its Noise session,
// which also hashes each ciphertext into the handshake hash), interleaved.
//   node bench/crypto.mjs [--quick] [--rounds N] [--json]
import nodeCrypto from 'node:crypto';
import { cbc, ctr, gcm } from '@noble/ciphers/aes.js';
import { hkdf as nobleHkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import * as bridge from 'whatsapp-rust-bridge';
import { load } from '../npm/index.mjs';
import { QUICK, report, run } from './harness.mjs';

const KiB = 1024;
const MiB = 1024 * KiB;
const bytes = (n, v) => new Uint8Array(n).fill(v);
const key = bytes(32, 7);
const iv = bytes(16, 9);
const nonce = iv.subarray(0, 12);
const small = bytes(KiB, 1);
const big = bytes(QUICK ? 64 * KiB : MiB, 2);
const bigName = QUICK ? '64 KiB' : '1 MiB';
const ikm = bytes(32, 3);
const info = new TextEncoder().encode('WhatsApp Image Keys');

const node = {
  seal: (d) => {
    const c = nodeCrypto.createCipheriv('aes-256-gcm', key, nonce);
    return Buffer.concat([c.update(d), c.final(), c.getAuthTag()]);
  },
  cbc: (d) => {
    const c = nodeCrypto.createCipheriv('aes-256-cbc', key, iv);
    return Buffer.concat([c.update(d), c.final()]);
  },
};
const sealedSmall = node.seal(small);
const cbcBig = node.cbc(big);

const impls = {};
for (const variant of ['scalar', 'simd']) {
  const api = await load({ variant });
  impls[`wacore ${variant}`] = {
    'AES-256-GCM seal 1 KiB': () => api.aesGcmSeal(key, nonce, small),
    'AES-256-GCM open 1 KiB': () => api.aesGcmOpen(key, nonce, sealedSmall),
    [`AES-256-CBC decrypt ${bigName}`]: () => api.aesCbcDecrypt(key, iv, cbcBig),
    [`AES-256-CBC encrypt ${bigName}`]: () => api.aesCbcEncrypt(key, iv, big),
    [`AES-256-CTR ${bigName}`]: () => api.aesCtr(key, iv, big),
    [`HMAC-SHA256 ${bigName}`]: () => api.hmacSha256(key, big),
    'HKDF-SHA256 112 B': () => api.hkdf(ikm, 112, { info }),
  };
}
impls['node:crypto (native)'] = {
  'AES-256-GCM seal 1 KiB': () => node.seal(small),
  'AES-256-GCM open 1 KiB': () => {
    const d = nodeCrypto.createDecipheriv('aes-256-gcm', key, nonce);
    d.setAuthTag(sealedSmall.subarray(KiB));
    return Buffer.concat([d.update(sealedSmall.subarray(0, KiB)), d.final()]);
  },
  [`AES-256-CBC decrypt ${bigName}`]: () => {
    const d = nodeCrypto.createDecipheriv('aes-256-cbc', key, iv);
    return Buffer.concat([d.update(cbcBig), d.final()]);
  },
  [`AES-256-CBC encrypt ${bigName}`]: () => node.cbc(big),
  [`AES-256-CTR ${bigName}`]: () => nodeCrypto.createCipheriv('aes-256-ctr', key, iv).update(big),
  [`HMAC-SHA256 ${bigName}`]: () => nodeCrypto.createHmac('sha256', key).update(big).digest(),
  'HKDF-SHA256 112 B': () => nodeCrypto.hkdfSync('sha256', ikm, new Uint8Array(0), info, 112),
};
impls['@noble/ciphers + hashes 2.4'] = {
  'AES-256-GCM seal 1 KiB': () => gcm(key, nonce).encrypt(small),
  'AES-256-GCM open 1 KiB': () => gcm(key, nonce).decrypt(sealedSmall),
  [`AES-256-CBC decrypt ${bigName}`]: () => cbc(key, iv).decrypt(cbcBig),
  [`AES-256-CBC encrypt ${bigName}`]: () => cbc(key, iv).encrypt(big),
  [`AES-256-CTR ${bigName}`]: () => ctr(key, iv).encrypt(big),
  [`HMAC-SHA256 ${bigName}`]: () => hmac(sha256, key, big),
  'HKDF-SHA256 112 B': () => nobleHkdf(sha256, ikm, undefined, info, 112),
};
{
  const kp = bridge.generateKeyPair();
  const noise = new bridge.NoiseSession(kp.pubKey, bridge.getWAConnHeader());
  noise.mixIntoKey(key);
  impls['whatsapp-rust-bridge 0.5.5'] = {
    'AES-256-GCM seal 1 KiB': () => noise.encrypt(small),
    'HKDF-SHA256 112 B': () => bridge.hkdf(ikm, 112, { info: 'WhatsApp Image Keys' }),
  };
}

report('Symmetric primitives', await run(impls));
