// Media encryption through the JS API, against an independent node:crypto implementation of the
// protocol (docs/protocol.md §6): every media type, sizes around block boundaries up to 1 MiB,
// streaming at many chunk sizes, Web and Node streams, tampering, ranges, sidecar, media retry.
import nodeCrypto from 'node:crypto';
import { Duplex, Readable } from 'node:stream';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { errorCode, hex, loadVariant, VARIANT } from './variant.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

// The reference: HKDF-SHA256 → iv, cipherKey, macKey; CBC; HMAC over iv || ciphertext, 10 bytes.
function reference(data, mediaKey, info) {
  const k = Buffer.from(nodeCrypto.hkdfSync('sha256', mediaKey, Buffer.alloc(0), `WhatsApp ${info} Keys`, 112));
  const iv = k.subarray(0, 16);
  const c = nodeCrypto.createCipheriv('aes-256-cbc', k.subarray(16, 48), iv);
  const ct = Buffer.concat([c.update(data), c.final()]);
  const mac = nodeCrypto.createHmac('sha256', k.subarray(48, 80)).update(iv).update(ct).digest().subarray(0, 10);
  const upload = Buffer.concat([ct, mac]);
  return {
    keys: k,
    upload,
    fileSha256: nodeCrypto.createHash('sha256').update(data).digest(),
    fileEncSha256: nodeCrypto.createHash('sha256').update(upload).digest(),
  };
}
const code = errorCode;
const flip = (bytes, i) => {
  const c = Uint8Array.from(bytes);
  c[i] ^= 1;
  return c;
};
const concat = (parts) => Buffer.concat(parts.map((p) => Buffer.from(p)));
const collect = async (iterable) => {
  const out = [];
  for await (const x of iterable) out.push(x);
  return out;
};

describe(`media (${VARIANT})`, () => {
  it('derives keys and encrypts as the protocol says, for every media type', () => {
    for (const [type, info] of Object.entries(api.MEDIA_HKDF_KEY_MAPPING)) {
      const mediaKey = nodeCrypto.randomBytes(32);
      const data = nodeCrypto.randomBytes(100 + type.length);
      const ref = reference(data, mediaKey, info);
      const keys = api.getMediaKeys(mediaKey, type);
      expect(hex(keys.iv) + hex(keys.cipherKey) + hex(keys.macKey) + hex(keys.refKey), type).toBe(hex(ref.keys));
      const r = api.encryptMedia(data, type, { mediaKey });
      expect(hex(r.encrypted), type).toBe(hex(ref.upload));
      expect(hex(r.fileSha256)).toBe(hex(ref.fileSha256));
      expect(hex(r.fileEncSha256)).toBe(hex(ref.fileEncSha256));
      expect(r.fileLength).toBe(data.length);
      expect(hex(api.decryptMedia(ref.upload, mediaKey, type, ref))).toBe(hex(data));
    }
    expect(code(() => api.getMediaKeys(nodeCrypto.randomBytes(32), 'hologram'))).toBe('ERR_TYPE');
    expect(code(() => api.getMediaKeys(nodeCrypto.randomBytes(31), 'image'))).toBe('ERR_KEY_LENGTH');
  });

  it('round-trips sizes around block boundaries up to 1 MiB, with a fresh media key each time', () => {
    const sizes = [...Array(50).keys(), 255, 256, 257, 1023, 1024, 1025, 65535, 65536, 65537, 1 << 20];
    for (const n of sizes) {
      const data = nodeCrypto.randomBytes(n);
      const r = api.encryptMedia(data, 'video');
      expect(r.mediaKey.length).toBe(32);
      expect(r.encrypted.length).toBe((Math.floor(n / 16) + 1) * 16 + 10);
      const back = api.decryptMedia(r.encrypted, r.mediaKey, 'video', { fileEncSha256: r.fileEncSha256, fileSha256: r.fileSha256 });
      expect(Buffer.from(back).equals(data), String(n)).toBe(true);
    }
  });

  it('rejects tampered, truncated or mismatching files before any plaintext is returned', () => {
    const data = nodeCrypto.randomBytes(5000);
    const r = api.encryptMedia(data, 'document');
    for (let i = 0; i < r.encrypted.length; i += 101) {
      const bad = r.encrypted.slice();
      bad[i] ^= 0x04;
      expect(code(() => api.decryptMedia(bad, r.mediaKey, 'document')), String(i)).toBe('ERR_AUTH_TAG');
    }
    expect(code(() => api.decryptMedia(r.encrypted.subarray(0, r.encrypted.length - 1), r.mediaKey, 'document'))).toBe('ERR_DATA_LENGTH');
    expect(code(() => api.decryptMedia(r.encrypted.subarray(0, 20), r.mediaKey, 'document'))).toBe('ERR_DATA_LENGTH');
    const wrong = new Uint8Array(32);
    expect(code(() => api.decryptMedia(r.encrypted, r.mediaKey, 'document', { fileEncSha256: wrong }))).toBe('ERR_AUTH_TAG');
    expect(code(() => api.decryptMedia(r.encrypted, r.mediaKey, 'document', { fileSha256: wrong }))).toBe('ERR_AUTH_TAG');
    expect(code(() => api.decryptMedia(r.encrypted, r.mediaKey, 'image'))).toBe('ERR_AUTH_TAG'); // other type, other keys
  });

  it('streams at any chunk size to the same bytes as one-shot, both ways', () => {
    const data = nodeCrypto.randomBytes(70_000);
    const mediaKey = nodeCrypto.randomBytes(32);
    const one = api.encryptMedia(data, 'audio', { mediaKey });
    for (const chunk of [1, 7, 15, 16, 17, 1000, 4096, 65536, 100_000]) {
      const enc = api.createMediaEncryptor('audio', { mediaKey });
      const parts = [];
      for (let i = 0; i < data.length; i += chunk) parts.push(enc.update(data.subarray(i, i + chunk)));
      const f = enc.final();
      expect(concat([...parts, f.tail]).equals(Buffer.from(one.encrypted)), `enc ${chunk}`).toBe(true);
      expect(hex(f.fileEncSha256)).toBe(hex(one.fileEncSha256));
      expect(hex(f.fileSha256)).toBe(hex(one.fileSha256));

      const dec = api.createMediaDecryptor(mediaKey, 'audio', { unverified: true });
      const out = [];
      for (let i = 0; i < one.encrypted.length; i += chunk) out.push(dec.update(one.encrypted.subarray(i, i + chunk)));
      const g = dec.final();
      expect(concat([...out, g.tail]).equals(data), `dec ${chunk}`).toBe(true);
      expect(hex(g.fileEncSha256)).toBe(hex(one.fileEncSha256));
    }
    // Streaming decryption of a forged file fails at the end; asking for it needs the explicit opt-in.
    const bad = one.encrypted.slice();
    bad[100] ^= 1;
    const dec = api.createMediaDecryptor(mediaKey, 'audio', { unverified: true });
    dec.update(bad);
    expect(code(() => dec.final())).toBe('ERR_AUTH_TAG');
    expect(code(() => api.createMediaDecryptor(mediaKey, 'audio'))).toBe('ERR_TYPE');
  });

  it('works as Web TransformStreams and through Node streams', async () => {
    const data = nodeCrypto.randomBytes(200_000);
    const { stream, done } = api.createMediaEncryptStream('image');
    const encrypted = concat(await collect(Readable.from([data.subarray(0, 70_000), data.subarray(70_000)]).pipe(Duplex.fromWeb(stream))));
    const { mediaKey, fileSha256, fileEncSha256 } = await done;
    expect(hex(nodeCrypto.createHash('sha256').update(encrypted).digest())).toBe(hex(fileEncSha256));
    const plain = new Response(new Blob([encrypted]).stream().pipeThrough(api.createMediaDecryptStream(mediaKey, 'image', { unverified: true, fileSha256 })));
    expect(Buffer.from(await plain.arrayBuffer()).equals(data)).toBe(true);
    const forged = Buffer.from(encrypted);
    forged[5] ^= 1;
    const failing = new Response(new Blob([forged]).stream().pipeThrough(api.createMediaDecryptStream(mediaKey, 'image', { unverified: true })));
    await expect(failing.arrayBuffer()).rejects.toMatchObject({ code: 'ERR_AUTH_TAG' });
  });

  it('decrypts ranges from any block, and computes the sidecar over iv || upload', () => {
    const data = nodeCrypto.randomBytes(150_000);
    const r = api.encryptMedia(data, 'video');
    const { iv, macKey } = api.getMediaKeys(r.mediaKey, 'video');
    for (const block of [0, 1, 100, 4095, 9000]) {
      const prev = block === 0 ? iv : r.encrypted.subarray((block - 1) * 16, block * 16);
      const out = api.decryptMediaRange(r.encrypted.subarray(block * 16, (block + 20) * 16), r.mediaKey, 'video', prev);
      expect(hex(out)).toBe(hex(data.subarray(block * 16, (block + 20) * 16)));
    }
    const side = api.mediaSidecar(r.encrypted, r.mediaKey, 'video');
    const s = Buffer.concat([Buffer.from(iv), Buffer.from(r.encrypted)]);
    const want = [];
    for (let at = 0; at < s.length; at += 65536) {
      want.push(nodeCrypto.createHmac('sha256', macKey).update(s.subarray(at, at + 65536 + 16)).digest().subarray(0, 10));
    }
    expect(hex(side)).toBe(hex(Buffer.concat(want)));
  });

  it('gives the same bytes and errors through the node:crypto path ({ native: true }) as through wasm ({ native: false })', () => {
    for (const n of [0, 1, 16, 1000, 300_000]) {
      const data = nodeCrypto.randomBytes(n);
      const mediaKey = nodeCrypto.randomBytes(32);
      const a = api.encryptMedia(data, 'video', { mediaKey, native: false });
      const b = api.encryptMedia(data, 'video', { mediaKey, native: true });
      const c = api.encryptMedia(data, 'video', { mediaKey });
      for (const k of ['encrypted', 'fileSha256', 'fileEncSha256']) expect(hex(b[k]), `${k} ${n}`).toBe(hex(a[k]));
      for (const k of ['encrypted', 'fileSha256', 'fileEncSha256']) expect(hex(c[k]), `${k} ${n}, default path`).toBe(hex(a[k]));
      expect(hex(api.decryptMedia(a.encrypted, mediaKey, 'video', { native: false, fileSha256: a.fileSha256, fileEncSha256: a.fileEncSha256 }))).toBe(hex(data));
      expect(hex(api.decryptMedia(a.encrypted, mediaKey, 'video'))).toBe(hex(data));
      expect(hex(api.decryptMedia(a.encrypted, mediaKey, 'video', { native: true, fileSha256: a.fileSha256, fileEncSha256: a.fileEncSha256 }))).toBe(hex(data));
      const bad = a.encrypted.slice();
      bad[0] ^= 1;
      expect(code(() => api.decryptMedia(bad, mediaKey, 'video', { native: true }))).toBe('ERR_AUTH_TAG');
      expect(code(() => api.decryptMedia(a.encrypted.subarray(1), mediaKey, 'video', { native: true }))).toBe('ERR_DATA_LENGTH');
      for (const native of [false, undefined]) {
        expect(code(() => api.decryptMedia(bad, mediaKey, 'video', { native }))).toBe('ERR_AUTH_TAG');
        expect(code(() => api.decryptMedia(a.encrypted.subarray(1), mediaKey, 'video', { native }))).toBe('ERR_DATA_LENGTH');
      }
    }
  });

  it('returns the node:crypto plaintext in a buffer of exactly its length, and wipes it on a bad padding', () => {
    const mediaKey = nodeCrypto.randomBytes(32);
    const data = nodeCrypto.randomBytes(3000);
    const up = api.encryptMedia(data, 'image', { mediaKey });
    const out = api.decryptMedia(up.encrypted, mediaKey, 'image');
    expect(out.buffer.byteLength).toBe(3000);
    expect(hex(out)).toBe(hex(data));
    // A valid MAC over a ciphertext whose padding is bad (made with the keys): ERR_BAD_PADDING,
    // and what node:crypto decrypted before final() refused is zeroed.
    const keys = api.getMediaKeys(mediaKey, 'image');
    const plain = Buffer.concat([nodeCrypto.randomBytes(2047), Buffer.from([0])]);
    const c = nodeCrypto.createCipheriv('aes-256-cbc', keys.cipherKey, keys.iv).setAutoPadding(false);
    const ct = Buffer.concat([c.update(plain), c.final()]);
    const mac = nodeCrypto.createHmac('sha256', keys.macKey).update(keys.iv).update(ct).digest().subarray(0, 10);
    const outputs = [];
    const original = nodeCrypto.createDecipheriv;
    const spy = vi.spyOn(nodeCrypto, 'createDecipheriv').mockImplementation((...args) => {
      const d = original.apply(nodeCrypto, args);
      const update = d.update.bind(d);
      d.update = (...a) => {
        const r = update(...a);
        outputs.push(r);
        return r;
      };
      return d;
    });
    try {
      expect(code(() => api.decryptMedia(Buffer.concat([ct, mac]), mediaKey, 'image'))).toBe('ERR_BAD_PADDING');
    } finally {
      spy.mockRestore();
    }
    expect(outputs.length).toBe(1);
    expect(outputs[0].every((b) => b === 0)).toBe(true);
  });

  it('runs whole files of 1 KiB or more on node:crypto by default, smaller ones and { native: false } in wasm', () => {
    // The package reaches node:crypto through process.getBuiltinModule: the same module object.
    const calls = { cipher: 0, decipher: 0 };
    const originalCipher = nodeCrypto.createCipheriv;
    const originalDecipher = nodeCrypto.createDecipheriv;
    const cipher = vi.spyOn(nodeCrypto, 'createCipheriv').mockImplementation((...args) => {
      calls.cipher++;
      return originalCipher.apply(nodeCrypto, args);
    });
    const decipher = vi.spyOn(nodeCrypto, 'createDecipheriv').mockImplementation((...args) => {
      calls.decipher++;
      return originalDecipher.apply(nodeCrypto, args);
    });
    try {
      const mediaKey = nodeCrypto.randomBytes(32);
      for (const [n, options, native] of [
        [1000, {}, false], // its upload is 1,018 bytes: wasm both ways
        [1024, {}, true],
        [1 << 20, {}, true],
        [1 << 20, { native: false }, false],
        [10, { native: true }, true],
      ]) {
        const before = { ...calls };
        const up = api.encryptMedia(nodeCrypto.randomBytes(n), 'image', { mediaKey, ...options });
        api.decryptMedia(up.encrypted, mediaKey, 'image', options);
        expect(calls.cipher - before.cipher, `encrypt ${n} ${JSON.stringify(options)}`).toBe(native ? 1 : 0);
        expect(calls.decipher - before.decipher, `decrypt ${n} ${JSON.stringify(options)}`).toBe(native ? 1 : 0);
      }
    } finally {
      cipher.mockRestore();
      decipher.mockRestore();
    }
  });

  it('gives the same results through encryptMediaAsync / decryptMediaAsync, on node:crypto or wasm as the sync calls', async () => {
    for (const n of [0, 1000, 1024, 70_000]) {
      const data = nodeCrypto.randomBytes(n);
      const mediaKey = nodeCrypto.randomBytes(32);
      const want = reference(data, mediaKey, 'Video');
      for (const native of [undefined, false, true]) {
        const r = await api.encryptMediaAsync(data, 'video', { mediaKey, native });
        expect([hex(r.encrypted), hex(r.fileSha256), hex(r.fileEncSha256), r.fileLength], `${n} ${native}`).toEqual([hex(want.upload), hex(want.fileSha256), hex(want.fileEncSha256), n]);
        expect(hex(await api.decryptMediaAsync(want.upload, mediaKey, 'video', { native, fileSha256: want.fileSha256 }))).toBe(hex(data));
      }
    }
    // Argument errors reject (they are not thrown synchronously), with the sync calls' codes.
    const pending = api.encryptMediaAsync('text', 'image');
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toMatchObject({ code: 'ERR_TYPE' });
    await expect(api.decryptMediaAsync(new Uint8Array(26), nodeCrypto.randomBytes(31), 'image')).rejects.toMatchObject({ code: 'ERR_KEY_LENGTH' });
    await expect(api.decryptMediaAsync(new Uint8Array(26), nodeCrypto.randomBytes(32), 'image', { native: 1 })).rejects.toMatchObject({ code: 'ERR_TYPE' });
  });

  it('never returns a media key that shares memory with the Buffer it was given', async () => {
    const mediaKey = Buffer.from(nodeCrypto.randomBytes(32));
    const copy = Buffer.from(mediaKey);
    const results = [api.encryptMedia(Buffer.alloc(10), 'image', { mediaKey }), await api.encryptMediaAsync(Buffer.alloc(10), 'image', { mediaKey }), api.createMediaEncryptor('image', { mediaKey })];
    mediaKey.fill(0);
    for (const r of results) expect(hex(r.mediaKey)).toBe(hex(copy));
    results[2].destroy();
  });

  // The media calls as a page sees them (no node:crypto), over this instance: the asynchronous
  // ones run on Web Crypto (Node's crypto.subtle here; Chromium's in tests/browser/run.mjs).
  describe('on Web Crypto, where there is no node:crypto', () => {
    let web;
    const subtle = globalThis.crypto.subtle;
    // Counts the Web Crypto calls of fn: { encrypt, decrypt, sign, digest, importKey }.
    const counted = async (fn) => {
      const calls = {};
      const spies = ['encrypt', 'decrypt', 'sign', 'digest', 'importKey'].map((name) => {
        const original = subtle[name];
        return vi.spyOn(subtle, name).mockImplementation(function (...args) {
          calls[name] = (calls[name] ?? 0) + 1;
          return original.apply(this, args);
        });
      });
      try {
        return { result: await fn(), calls };
      } finally {
        for (const s of spies) s.mockRestore();
      }
    };
    beforeAll(() => {
      web = api[Symbol.for('wacore-wasm.mediaWithoutNodeCrypto')]();
    });

    it('gives the bytes of the protocol at sizes 0..300,000, with the same errors as wasm', async () => {
      for (const n of [0, 1, 15, 16, 17, 1000, 4095, 4096, 8160, 8176, 65_536, 300_001]) {
        const data = nodeCrypto.randomBytes(n);
        const mediaKey = nodeCrypto.randomBytes(32);
        const want = reference(data, mediaKey, 'Document');
        for (const native of [undefined, true]) {
          const r = await web.encryptMediaAsync(data, 'document', { mediaKey, native });
          expect([hex(r.encrypted), hex(r.fileSha256), hex(r.fileEncSha256), r.fileLength, hex(r.mediaKey)], `${n} ${native}`).toEqual([hex(want.upload), hex(want.fileSha256), hex(want.fileEncSha256), n, hex(mediaKey)]);
          const hashes = { fileSha256: want.fileSha256, fileEncSha256: want.fileEncSha256 };
          const out = await web.decryptMediaAsync(want.upload, mediaKey, 'document', { native, ...hashes });
          expect(hex(out)).toBe(hex(data));
          expect(out.buffer.byteLength).toBe(n);
          // Every tampering, and a wrong hash either side, rejects as in wasm (decryptMedia).
          const cases = [
            [flip(want.upload, 0), {}],
            [flip(want.upload, want.upload.length - 1), {}],
            [want.upload, { fileEncSha256: flip(want.fileEncSha256, 3) }],
            [want.upload, { fileSha256: flip(want.fileSha256, 31) }],
            [want.upload.subarray(1), {}],
            [want.upload.subarray(0, 25), {}],
            [new Uint8Array(0), {}],
          ];
          for (const [file, options] of cases) {
            const expected = code(() => api.decryptMedia(file, mediaKey, 'document', { native: false, ...options }));
            expect(expected).not.toBe(null);
            const got = await web.decryptMediaAsync(file, mediaKey, 'document', { native, ...options }).then(() => null, (e) => e.code);
            expect(got, `${n} ${JSON.stringify(Object.keys(options))}`).toBe(expected);
          }
        }
      }
    });

    it('refuses a bad padding under a valid MAC with ERR_BAD_PADDING', async () => {
      const mediaKey = nodeCrypto.randomBytes(32);
      const keys = api.getMediaKeys(mediaKey, 'image');
      const c = nodeCrypto.createCipheriv('aes-256-cbc', keys.cipherKey, keys.iv).setAutoPadding(false);
      const ct = Buffer.concat([c.update(Buffer.concat([nodeCrypto.randomBytes(8191), Buffer.from([0])])), c.final()]);
      const mac = nodeCrypto.createHmac('sha256', keys.macKey).update(keys.iv).update(ct).digest().subarray(0, 10);
      const file = Buffer.concat([ct, mac]);
      expect(code(() => api.decryptMedia(file, mediaKey, 'image', { native: false }))).toBe('ERR_BAD_PADDING');
      await expect(web.decryptMediaAsync(file, mediaKey, 'image')).rejects.toMatchObject({ code: 'ERR_BAD_PADDING' });
    });

    it('encrypts from 4 KiB and decrypts uploads from 8 KiB (any size with { native: true }) on Web Crypto, smaller ones and { native: false } in wasm', async () => {
      const mediaKey = nodeCrypto.randomBytes(32);
      for (const [n, options, encOnWeb, decOnWeb] of [
        [4095, {}, false, false],
        [4096, {}, true, false], // its upload is 4,122 bytes
        [8160, {}, true, false], // 8,186 bytes
        [8176, {}, true, true], // 8,202 bytes
        [1 << 20, {}, true, true],
        [1 << 20, { native: false }, false, false],
        [10, { native: true }, true, true],
      ]) {
        const data = nodeCrypto.randomBytes(n);
        const { result: up, calls: enc } = await counted(() => web.encryptMediaAsync(data, 'image', { mediaKey, ...options }));
        const { result: out, calls: dec } = await counted(() => web.decryptMediaAsync(up.encrypted, mediaKey, 'image', options));
        expect(hex(out)).toBe(hex(data));
        const label = `${n} ${JSON.stringify(options)}`;
        expect(enc, `encrypt ${label}`).toEqual(encOnWeb ? { importKey: 2, encrypt: 1, sign: 1, digest: 2 } : {});
        expect(dec, `decrypt ${label}`).toEqual(decOnWeb ? { importKey: 2, sign: 1, decrypt: 1 } : {});
      }
      // The sync calls never take Web Crypto.
      const { calls } = await counted(() => web.decryptMedia(web.encryptMedia(new Uint8Array(1 << 16), 'image', { mediaKey }).encrypted, mediaKey, 'image'));
      expect(calls).toEqual({});
    });

    it('reads its input when called: later changes to it change nothing, and the caller\'s bytes are left as they were', async () => {
      const mediaKey = nodeCrypto.randomBytes(32);
      const data = Buffer.from(nodeCrypto.randomBytes(20_000));
      const original = Buffer.from(data);
      const pending = web.encryptMediaAsync(data, 'image', { mediaKey });
      data.fill(7);
      const r = await pending;
      expect(hex(r.encrypted)).toBe(hex(reference(original, mediaKey, 'Image').upload));
      expect(hex(r.fileSha256)).toBe(hex(nodeCrypto.createHash('sha256').update(original).digest()));
      const upload = Buffer.from(r.encrypted);
      const decrypting = web.decryptMediaAsync(upload, mediaKey, 'image', { fileSha256: r.fileSha256 });
      upload[100] ^= 1; // after the call: the copy taken then is what is authenticated and decrypted
      expect(hex(await decrypting)).toBe(hex(original));
      expect(upload[100]).toBe(r.encrypted[100] ^ 1);
      // The media key given is read when the call is made too: the key returned is the one used.
      const key = Buffer.from(nodeCrypto.randomBytes(32));
      const keyCopy = Buffer.from(key);
      const sealing = web.encryptMediaAsync(original, 'image', { mediaKey: key });
      key.fill(0);
      const sealed = await sealing;
      expect(hex(sealed.mediaKey)).toBe(hex(keyCopy));
      expect(hex(await web.decryptMediaAsync(sealed.encrypted, sealed.mediaKey, 'image'))).toBe(hex(original));
      // And the data given is not wiped (its copy is).
      const kept = Buffer.from(nodeCrypto.randomBytes(5000));
      const keptCopy = Buffer.from(kept);
      await web.encryptMediaAsync(kept, 'image', { mediaKey });
      expect(hex(kept)).toBe(hex(keptCopy));
    });

    it('rejects { native: true } with ERR_TYPE where there is no Web Crypto either, and runs wasm by default there', async () => {
      const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
      const getRandomValues = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
      Object.defineProperty(globalThis, 'crypto', { value: { getRandomValues }, configurable: true, writable: true });
      try {
        await expect(web.encryptMediaAsync(new Uint8Array(10), 'image', { native: true })).rejects.toMatchObject({ code: 'ERR_TYPE' });
        const mediaKey = nodeCrypto.randomBytes(32);
        const data = nodeCrypto.randomBytes(70_000);
        const r = await web.encryptMediaAsync(data, 'image', { mediaKey });
        expect(hex(r.encrypted)).toBe(hex(reference(data, mediaKey, 'Image').upload));
        expect(hex(await web.decryptMediaAsync(r.encrypted, mediaKey, 'image'))).toBe(hex(data));
      } finally {
        Object.defineProperty(globalThis, 'crypto', descriptor);
      }
    });
  });

  it('encrypts and decrypts media-retry payloads bound to their message id', () => {
    const mediaKey = nodeCrypto.randomBytes(32);
    const payload = nodeCrypto.randomBytes(60);
    const { ciphertext, iv } = api.encryptMediaRetryData(mediaKey, '3EB0ABCDEF', payload);
    expect(hex(api.decryptMediaRetryData(mediaKey, '3EB0ABCDEF', ciphertext, iv))).toBe(hex(payload));
    const key = nodeCrypto.hkdfSync('sha256', mediaKey, Buffer.alloc(0), 'WhatsApp Media Retry Notification', 32);
    const d = nodeCrypto.createDecipheriv('aes-256-gcm', Buffer.from(key), iv);
    d.setAAD(Buffer.from('3EB0ABCDEF'));
    d.setAuthTag(ciphertext.subarray(-16));
    expect(hex(Buffer.concat([d.update(ciphertext.subarray(0, -16)), d.final()]))).toBe(hex(payload));
    expect(code(() => api.decryptMediaRetryData(mediaKey, 'OTHER', ciphertext, iv))).toBe('ERR_AUTH_TAG');
  });
});
