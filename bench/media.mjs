// Media: decryption with MAC verification, and encryption with both file hashes, of 64 KiB, 1 MiB
// and 16 MiB: wacore-wasm (both builds) next to node:crypto (native AES-NI, the same protocol steps)
// and @noble/ciphers + @noble/hashes (pure JS), interleaved. Baileys' media helpers need its whole
// dependency tree (axios, ...) and cannot load here.
//   node bench/media.mjs [--quick] [--rounds N] [--json]
import nodeCrypto from 'node:crypto';
import { cbc } from '@noble/ciphers/aes.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { load } from '../npm/index.mjs';
import { QUICK, report, run } from './harness.mjs';

const SIZES = QUICK ? [['64 KiB', 64 << 10]] : [['64 KiB', 64 << 10], ['1 MiB', 1 << 20], ['16 MiB', 16 << 20]];
const INFO = 'WhatsApp Image Keys';
const mediaKey = nodeCrypto.randomBytes(32);
const INFO_BYTES = new TextEncoder().encode(INFO);
const keysOf = (hk) => ({ iv: hk.subarray(0, 16), cipher: hk.subarray(16, 48), mac: hk.subarray(48, 80) });

const node = {
  encrypt(data) {
    const k = keysOf(Buffer.from(nodeCrypto.hkdfSync('sha256', mediaKey, Buffer.alloc(0), INFO, 112)));
    const c = nodeCrypto.createCipheriv('aes-256-cbc', k.cipher, k.iv);
    const ct = Buffer.concat([c.update(data), c.final()]);
    const mac = nodeCrypto.createHmac('sha256', k.mac).update(k.iv).update(ct).digest().subarray(0, 10);
    const up = Buffer.concat([ct, mac]);
    return { up, sha: nodeCrypto.createHash('sha256').update(data).digest(), enc: nodeCrypto.createHash('sha256').update(up).digest() };
  },
  decrypt(up) {
    const k = keysOf(Buffer.from(nodeCrypto.hkdfSync('sha256', mediaKey, Buffer.alloc(0), INFO, 112)));
    const ct = up.subarray(0, up.length - 10);
    const mac = nodeCrypto.createHmac('sha256', k.mac).update(k.iv).update(ct).digest().subarray(0, 10);
    if (!nodeCrypto.timingSafeEqual(mac, up.subarray(up.length - 10))) throw new Error('mac');
    const d = nodeCrypto.createDecipheriv('aes-256-cbc', k.cipher, k.iv);
    return Buffer.concat([d.update(ct), d.final()]);
  },
};
const noble = {
  encrypt(data) {
    const k = keysOf(hkdf(sha256, mediaKey, undefined, INFO_BYTES, 112));
    const ct = cbc(k.cipher, k.iv).encrypt(data);
    const mac = hmac.create(sha256, k.mac).update(k.iv).update(ct).digest().subarray(0, 10);
    const up = new Uint8Array(ct.length + 10);
    up.set(ct);
    up.set(mac, ct.length);
    return { up, sha: sha256(data), enc: sha256(up) };
  },
  decrypt(up) {
    const k = keysOf(hkdf(sha256, mediaKey, undefined, INFO_BYTES, 112));
    const ct = up.subarray(0, up.length - 10);
    const mac = hmac.create(sha256, k.mac).update(k.iv).update(ct).digest().subarray(0, 10);
    if (mac.some((b, i) => b !== up[ct.length + i])) throw new Error('mac');
    return cbc(k.cipher, k.iv).decrypt(ct);
  },
};

const impls = { 'wacore scalar { native: false }': {}, 'wacore simd { native: false }': {}, 'wacore (default: node:crypto)': {}, 'node:crypto (native)': {}, '@noble 2.4 (JS)': {} };
for (const [name, size] of SIZES) {
  const data = nodeCrypto.randomBytes(size);
  const up = node.encrypt(data).up;
  for (const variant of ['scalar', 'simd']) {
    const api = await load({ variant });
    impls[`wacore ${variant} { native: false }`][`decrypt + verify ${name}`] = () => api.decryptMedia(up, mediaKey, 'image', { native: false });
    impls[`wacore ${variant} { native: false }`][`encrypt + hashes ${name}`] = () => api.encryptMedia(data, 'image', { mediaKey, native: false });
  }
  const api = await load();
  impls['wacore (default: node:crypto)'][`decrypt + verify ${name}`] = () => api.decryptMedia(up, mediaKey, 'image');
  impls['wacore (default: node:crypto)'][`encrypt + hashes ${name}`] = () => api.encryptMedia(data, 'image', { mediaKey });
  impls['node:crypto (native)'][`decrypt + verify ${name}`] = () => node.decrypt(up);
  impls['node:crypto (native)'][`encrypt + hashes ${name}`] = () => node.encrypt(data);
  impls['@noble 2.4 (JS)'][`decrypt + verify ${name}`] = () => noble.decrypt(up);
  impls['@noble 2.4 (JS)'][`encrypt + hashes ${name}`] = () => noble.encrypt(data);
}
report('Media', await run(impls));
