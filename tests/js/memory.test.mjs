// Long run: 100,000 calls, about half of them failing inside wasm or at the boundary, and streams
// finished, destroyed and failed, must leave the
// wasm memory size and the bytes held by malloc exactly where they were after warm-up.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadVariant, VARIANT } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

describe(`memory (${VARIANT})`, () => {
  it('stays flat over 100,000 calls, failing ones included', () => {
    const a = api.generateKeyPair();
    const b = api.generateKeyPair();
    const msg = new Uint8Array(300).fill(1);
    const big = new Uint8Array(64 * 1024).fill(2);
    const sig = api.calculateSignature(a.privKey, msg);
    const badSig = sig.slice();
    badSig[10] ^= 1;
    const lowOrder = new Uint8Array(32);
    const expectCode = (fn, code) => {
      try {
        fn();
      } catch (e) {
        if (e.code !== code) throw e;
        return;
      }
      throw new Error(`expected ${code}`);
    };

    const key = new Uint8Array(32).fill(9);
    const iv = new Uint8Array(16).fill(8);
    const sealed = api.aesGcmSeal(key, iv.subarray(0, 12), msg);
    const forged = sealed.slice();
    forged[0] ^= 1;
    const cbc = api.aesCbcEncrypt(key, iv, msg);
    const stanza = {
      tag: 'message',
      attrs: { to: '5511987654321:12@s.whatsapp.net', id: '3EB0C431C26A1916E0E9', t: '1700000000' },
      content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: msg }],
    };
    const truncated = api.encodeBinaryNode(stanza).subarray(0, 40);
    const media = api.encryptMedia(msg, 'image');
    const forgedMedia = media.encrypted.slice();
    forgedMedia[3] ^= 1;
    const cheap = [
      () => api.generateRegistrationId(),
      () => expectCode(() => api.calculateAgreement(lowOrder, a.privKey), 'ERR_LOW_ORDER_POINT'),
      () => expectCode(() => api.calculateAgreement(a.pubKey, new Uint8Array(31)), 'ERR_KEY_LENGTH'),
      () => expectCode(() => api.verifySignature(a.pubKey, msg, new Uint8Array(63)), 'ERR_SIGNATURE_LENGTH'),
      () => expectCode(() => api.calculateSignature('nope', msg), 'ERR_TYPE'),
      () => expectCode(() => api.aesGcmOpen(key, iv.subarray(0, 12), forged), 'ERR_AUTH_TAG'),
      () => expectCode(() => api.aesCbcDecrypt(key, iv, cbc.subarray(0, 31)), 'ERR_DATA_LENGTH'),
      () => api.aesGcmOpen(key, iv.subarray(0, 12), sealed),
      () => api.aesCbcDecrypt(key, iv, cbc),
      () => api.hkdf(msg, 112, { info: iv }),
      () => api.hmacSha256(key, msg),
      () => {
        const s = api.createAesGcmEncryptor(key, iv.subarray(0, 12));
        s.update(msg);
        s.final();
      },
      () => api.createAesCtr(key, iv).destroy(),
      () => {
        const s = api.createAesCbcDecryptor(key, iv);
        s.update(cbc.subarray(0, 20));
        expectCode(() => s.final(), 'ERR_DATA_LENGTH');
      },
      () => api.createHash('sha256').update(msg).digest(),
      () => api.decodeBinaryNode(api.encodeBinaryNode(stanza)),
      () => api.encodeBinaryNode(stanza, { dictionary: 2 }),
      () => expectCode(() => api.decodeBinaryNode(truncated), 'ERR_BINARY_TRUNCATED'),
      () => expectCode(() => api.encodeBinaryNode({ tag: 'x', attrs: { a: 1 } }), 'ERR_TYPE'),
      () => api.decryptMedia(media.encrypted, media.mediaKey, 'image'),
      () => expectCode(() => api.decryptMedia(forgedMedia, media.mediaKey, 'image'), 'ERR_AUTH_TAG'),
      () => {
        const d = api.createMediaDecryptor(media.mediaKey, 'image', { unverified: true });
        d.update(forgedMedia);
        expectCode(() => d.final(), 'ERR_AUTH_TAG');
      },
    ];
    const ops = [
      () => api.generateRegistrationId(),
      () => expectCode(() => api.calculateAgreement(lowOrder, a.privKey), 'ERR_LOW_ORDER_POINT'),
      () => expect(api.verifySignature(a.pubKey, msg, badSig)).toBe(false),
      () => expectCode(() => api.calculateAgreement(a.pubKey, new Uint8Array(31)), 'ERR_KEY_LENGTH'),
      () => expectCode(() => api.verifySignature(a.pubKey, msg, new Uint8Array(63)), 'ERR_SIGNATURE_LENGTH'),
      () => expectCode(() => api.calculateSignature('nope', msg), 'ERR_TYPE'),
      () => api.calculateAgreement(b.pubKey, a.privKey),
      () => api.calculateSignature(a.privKey, msg),
      () => api.generateKeyPair(),
      () => api.verifySignature(a.pubKey, big, sig),
    ];
    // Warm-up: the I/O buffer grows once to the largest input (64 KiB) and is reused from then on.
    for (const op of [...ops, ...cheap]) op();
    const before = api.memoryStats();

    const CALLS = 100_000;
    // Cheap operations run often and the expensive curve ones rarely, to keep the run short.
    for (let i = 0; i < CALLS; i++) {
      const k = i % 100;
      if (k < 94) cheap[k % cheap.length]();
      else ops[6 + (k % 4)]();
    }
    const after = api.memoryStats();
    expect(after.wasmMemoryBytes).toBe(before.wasmMemoryBytes);
    // Not exact equality: emmalloc may hand out a region a few bytes larger than asked when the rest
    // would be too small to split, depending on the free list (streams are allocated and freed every
    // few calls). A leak of even one byte per call would show here as 100 KB.
    expect(after.heapInUseBytes - before.heapInUseBytes).toBeLessThan(1024);
    expect(after.heapInUseBytes).toBeGreaterThanOrEqual(before.heapInUseBytes - 1024);
  });
});
