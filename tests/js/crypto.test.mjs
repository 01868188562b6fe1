// AES-256 CBC/CTR/GCM, SHA-2, HMAC, HKDF through the JS API: Wycheproof, differential against
// node:crypto and against the other wasm build, streaming splits, errors, stream lifetime.
import nodeCrypto from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { load } from '../../npm/index.mjs';
import { hex, loadVariant, unhex, VARIANT } from './variant.mjs';
import { WYCHEPROOF_DIR, WYCHEPROOF_NOTE, wycheproof as vectors } from './vectors.mjs';

let api;
let other; // the other build, for scalar-vs-SIMD equality
beforeAll(async () => {
  api = await loadVariant();
  other = await load({ variant: VARIANT === 'simd' ? 'scalar' : 'simd' });
  expect(other.variant).not.toBe(api.variant);
});

const rand = (n) => {
  const out = new Uint8Array(n);
  for (let off = 0; off < n; off += 65536) nodeCrypto.getRandomValues(out.subarray(off, Math.min(n, off + 65536)));
  return out;
};
const codeOf = (fn) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(api.WacoreError);
    return e.code;
  }
  throw new Error('expected a WacoreError');
};
const node = {
  cbcEncrypt: (k, iv, d) => {
    const c = nodeCrypto.createCipheriv('aes-256-cbc', k, iv);
    return Buffer.concat([c.update(d), c.final()]);
  },
  ctr: (k, iv, d) => {
    const c = nodeCrypto.createCipheriv('aes-256-ctr', k, iv);
    return Buffer.concat([c.update(d), c.final()]);
  },
  gcmSeal: (k, iv, d, aad) => {
    const c = nodeCrypto.createCipheriv('aes-256-gcm', k, iv);
    if (aad) c.setAAD(aad);
    return Buffer.concat([c.update(d), c.final(), c.getAuthTag()]);
  },
};

describe.skipIf(!WYCHEPROOF_DIR)(`Wycheproof through the JS API (${VARIANT}): ${WYCHEPROOF_NOTE}`, () => {
  it('AES-256-GCM: every case with a 256-bit key', () => {
    let n = 0;
    for (const g of vectors('aes_gcm_test.json').testGroups) {
      if (g.keySize !== 256) continue;
      for (const t of g.tests) {
        const [key, iv, aad, msg] = [t.key, t.iv, t.aad, t.msg].map(unhex);
        const sealed = unhex(t.ct + t.tag);
        if (t.result === 'valid') {
          expect(hex(api.aesGcmSeal(key, iv, msg, aad)), `tcId ${t.tcId}`).toBe(t.ct + t.tag);
          expect(hex(api.aesGcmOpen(key, iv, sealed, aad)), `tcId ${t.tcId}`).toBe(t.msg);
        } else {
          expect(codeOf(() => api.aesGcmOpen(key, iv, sealed, aad)), `tcId ${t.tcId}`).toBe(
            iv.length === 0 ? 'ERR_IV_LENGTH' : 'ERR_AUTH_TAG',
          );
        }
        n++;
      }
    }
    expect(n).toBe(105);
  });

  it('AES-256-CBC with PKCS#7: every case with a 256-bit key', () => {
    let n = 0;
    for (const g of vectors('aes_cbc_pkcs5_test.json').testGroups) {
      if (g.keySize !== 256) continue;
      for (const t of g.tests) {
        const [key, iv, msg, ct] = [t.key, t.iv, t.msg, t.ct].map(unhex);
        if (t.result === 'valid') {
          expect(hex(api.aesCbcEncrypt(key, iv, msg))).toBe(t.ct);
          expect(hex(api.aesCbcDecrypt(key, iv, ct))).toBe(t.msg);
        } else {
          expect(['ERR_BAD_PADDING', 'ERR_DATA_LENGTH']).toContain(codeOf(() => api.aesCbcDecrypt(key, iv, ct)));
        }
        n++;
      }
    }
    expect(n).toBe(72);
  });

  it('HKDF-SHA256, HMAC-SHA256 and HMAC-SHA512: every case', () => {
    for (const g of vectors('hkdf_sha256_test.json').testGroups) {
      for (const t of g.tests) {
        const args = [unhex(t.ikm), t.size, { salt: unhex(t.salt), info: unhex(t.info) }];
        if (t.result === 'valid') expect(hex(api.hkdf(...args))).toBe(t.okm);
        else expect(codeOf(() => api.hkdf(...args))).toBe('ERR_OUTPUT_LENGTH');
      }
    }
    for (const [file, fn] of [
      ['hmac_sha256_test.json', api.hmacSha256],
      ['hmac_sha512_test.json', api.hmacSha512],
    ]) {
      for (const g of vectors(file).testGroups) {
        for (const t of g.tests) {
          const mac = hex(fn(unhex(t.key), unhex(t.msg))).slice(0, g.tagSize / 4);
          expect(mac === t.tag, `${file} tcId ${t.tcId}`).toBe(t.result === 'valid');
        }
      }
    }
  });
});

describe(`differential against node:crypto and the other build (${VARIANT})`, () => {
  // The wasm implementations (by default, calls of 1 KiB or more would run in node:crypto).
  const W = { native: false };
  it('every length 0..1024: CBC, CTR, GCM, SHA-2, HMAC, HKDF', () => {
    const key = rand(32);
    const iv = rand(16);
    const nonce = rand(12);
    for (let len = 0; len <= 1024; len++) {
      const msg = rand(len);
      const aad = rand(len % 41);
      const cbc = api.aesCbcEncrypt(key, iv, msg, W);
      expect(hex(cbc)).toBe(hex(node.cbcEncrypt(key, iv, msg)));
      expect(hex(api.aesCbcDecrypt(key, iv, cbc, W))).toBe(hex(msg));
      const ctr = api.aesCtr(key, iv, msg, W);
      expect(hex(ctr)).toBe(hex(node.ctr(key, iv, msg)));
      const gcm = api.aesGcmSeal(key, nonce, msg, aad, W);
      expect(hex(gcm)).toBe(hex(node.gcmSeal(key, nonce, msg, aad)));
      expect(hex(api.aesGcmOpen(key, nonce, gcm, aad, W))).toBe(hex(msg));
      expect(hex(api.sha256(msg, W))).toBe(nodeCrypto.createHash('sha256').update(msg).digest('hex'));
      expect(hex(api.sha512(msg, W))).toBe(nodeCrypto.createHash('sha512').update(msg).digest('hex'));
      expect(hex(api.md5(msg))).toBe(nodeCrypto.createHash('md5').update(msg).digest('hex'));
      expect(hex(api.hmacSha256(aad, msg, W))).toBe(nodeCrypto.createHmac('sha256', aad).update(msg).digest('hex'));
      expect(hex(api.hmacSha512(aad, msg, W))).toBe(nodeCrypto.createHmac('sha512', aad).update(msg).digest('hex'));
      if (len % 8 === 0) {
        const n = len % 300;
        expect(hex(api.hkdf(msg, n, { salt: aad, info: iv }))).toBe(
          Buffer.from(nodeCrypto.hkdfSync('sha256', msg, aad, iv, n)).toString('hex'),
        );
      }
      // Both wasm builds give identical bytes.
      if (len % 16 === 0 || len % 16 === 1) {
        expect(hex(other.aesCbcEncrypt(key, iv, msg, W))).toBe(hex(cbc));
        expect(hex(other.aesCtr(key, iv, msg, W))).toBe(hex(ctr));
        expect(hex(other.aesGcmSeal(key, nonce, msg, aad, W))).toBe(hex(gcm));
      }
    }
  });

  it('a few MiB, and GCM with IVs of other lengths', () => {
    for (const size of [1 << 20, 3 * (1 << 20) + 5]) {
      const key = rand(32);
      const iv = rand(16);
      const msg = rand(size);
      const cbc = api.aesCbcEncrypt(key, iv, msg, W);
      expect(Buffer.from(cbc).equals(node.cbcEncrypt(key, iv, msg))).toBe(true);
      expect(Buffer.from(api.aesCbcDecrypt(key, iv, cbc, W)).equals(Buffer.from(msg))).toBe(true);
      expect(Buffer.from(other.aesCbcDecrypt(key, iv, cbc, W)).equals(Buffer.from(msg))).toBe(true);
      expect(Buffer.from(api.aesCtr(key, iv, msg, W)).equals(node.ctr(key, iv, msg))).toBe(true);
      const gcm = api.aesGcmSeal(key, iv.subarray(0, 12), msg, undefined, W);
      expect(Buffer.from(gcm).equals(node.gcmSeal(key, iv.subarray(0, 12), msg))).toBe(true);
      expect(hex(api.sha256(msg, W))).toBe(nodeCrypto.createHash('sha256').update(msg).digest('hex'));
    }
    const key = rand(32);
    for (const ivLen of [1, 8, 11, 13, 16, 32, 100]) {
      const iv = rand(ivLen);
      const msg = rand(100);
      expect(hex(api.aesGcmSeal(key, iv, msg, undefined, W))).toBe(hex(node.gcmSeal(key, iv, msg)));
    }
  });
});

describe(`one-shot calls on node:crypto from 1 KiB (${VARIANT})`, () => {
  const ops = (key, iv, nonce, aad) => ({
    cbcEncrypt: (d, o) => api.aesCbcEncrypt(key, iv, d, o),
    ctr: (d, o) => api.aesCtr(key, iv, d, o),
    gcmSeal: (d, o) => api.aesGcmSeal(key, nonce, d, aad, o),
    sha256: (d, o) => api.sha256(d, o),
    sha512: (d, o) => api.sha512(d, o),
    hmacSha256: (d, o) => api.hmacSha256(key, d, o),
    hmacSha512: (d, o) => api.hmacSha512(key, d, o),
  });

  it('gives the same bytes and errors by default, in wasm ({ native: false }) and in node:crypto ({ native: true })', () => {
    const key = rand(32);
    const iv = rand(16);
    const nonce = rand(12);
    const aad = rand(13);
    for (const n of [0, 1, 15, 16, 1023, 1024, 1025, 5000, 70_000]) {
      const d = rand(n);
      for (const [name, f] of Object.entries(ops(key, iv, nonce, aad))) {
        const want = hex(f(d, { native: false }));
        expect(hex(f(d)), `${name} ${n}`).toBe(want);
        expect(hex(f(d, { native: true })), `${name} ${n} native`).toBe(want);
      }
      const cbc = api.aesCbcEncrypt(key, iv, d);
      const gcm = api.aesGcmSeal(key, nonce, d, aad);
      for (const native of [false, true, undefined]) {
        const o = { native };
        expect(hex(api.aesCbcDecrypt(key, iv, cbc, o))).toBe(hex(d));
        expect(hex(api.aesGcmOpen(key, nonce, gcm, aad, o))).toBe(hex(d));
        const bad = gcm.slice();
        bad[0] ^= 1;
        expect(codeOf(() => api.aesGcmOpen(key, nonce, bad, aad, o)), `gcm tag ${n} ${native}`).toBe('ERR_AUTH_TAG');
        expect(codeOf(() => api.aesCbcEncrypt(rand(31), iv, d, o))).toBe('ERR_KEY_LENGTH');
        expect(codeOf(() => api.aesCtr(key, rand(12), d, o))).toBe('ERR_IV_LENGTH');
        expect(codeOf(() => api.aesGcmSeal(key, new Uint8Array(0), d, aad, o))).toBe('ERR_IV_LENGTH');
        expect(codeOf(() => api.aesCbcDecrypt(key, iv, rand(n - (n % 16) + 1), o))).toBe('ERR_DATA_LENGTH');
        expect(codeOf(() => api.aesGcmOpen(key, nonce, rand(15), aad, o))).toBe('ERR_DATA_LENGTH');
        // A last block ending in 0x00 is never valid padding (C1 = E(P xor C0)).
        const c0 = rand(16);
        const last = rand(16);
        last[15] = 0;
        const c1 = api.aesCbcEncrypt(key, c0, last, { native: false }).subarray(0, 16);
        expect(codeOf(() => api.aesCbcDecrypt(key, iv, new Uint8Array([...rand(Math.max(0, n - (n % 16))), ...c0, ...c1]), o))).toBe('ERR_BAD_PADDING');
      }
    }
  });

  it('keeps in wasm what node:crypto would refuse, reads options once and strictly, and ignores non-object ones', () => {
    const key = rand(32);
    const d = rand(2000);
    // GCM IVs over 128 bytes (OpenSSL's limit; valid GCM): wasm, by default too.
    for (const ivLen of [1, 13, 128, 129, 200, 1000]) {
      const iv = rand(ivLen);
      expect(hex(api.aesGcmOpen(key, iv, api.aesGcmSeal(key, iv, d), undefined)), `open, iv ${ivLen}`).toBe(hex(d));
      expect(hex(api.aesGcmSeal(key, iv, d)), `seal, iv ${ivLen}`).toBe(hex(api.aesGcmSeal(key, iv, d, undefined, { native: false })));
    }
    // native: only true, false or absent, and only as the options' own property.
    for (const native of [0, 1, 'false', null, new Boolean(false), {}]) expect(codeOf(() => api.sha256(d, { native })), String(native)).toBe('ERR_TYPE');
    Object.prototype.native = true; // eslint-disable-line no-extend-native
    try {
      expect(hex(api.sha256(rand(10), {}))).toHaveLength(64); // not forced onto node:crypto by the prototype
    } finally {
      delete Object.prototype.native;
    }
    // A map() index where the options go is no options (these functions took no options before).
    expect([d].map(api.sha256).map(hex)).toEqual([hex(api.sha256(d))]);
    // The options are read before the data: a getter that detaches the data cannot make an empty
    // input of it.
    const victim = rand(4096);
    const sneaky = {
      get native() {
        structuredClone(victim.buffer, { transfer: [victim.buffer] });
        return undefined;
      },
    };
    expect(codeOf(() => api.sha256(victim, sneaky))).toBe('ERR_TYPE');
  });

  it('runs 1 KiB or more in node:crypto by default, less in wasm, and { native } as asked', () => {
    const seen = [];
    const spies = ['createCipheriv', 'createDecipheriv', 'createHash', 'createHmac'].map((name) => {
      const original = nodeCrypto[name];
      return vi.spyOn(nodeCrypto, name).mockImplementation((...args) => {
        seen.push(name);
        return original.apply(nodeCrypto, args);
      });
    });
    try {
      const key = rand(32);
      for (const [n, o, native] of [
        [1023, undefined, false],
        [1024, undefined, true],
        [1 << 20, undefined, true],
        [1 << 20, { native: false }, false],
        [10, { native: true }, true],
      ]) {
        for (const [name, f] of Object.entries(ops(key, rand(16), rand(12), undefined))) {
          seen.length = 0;
          f(new Uint8Array(n), o);
          expect(seen.length > 0, `${name} ${n} ${JSON.stringify(o)}`).toBe(native);
        }
      }
    } finally {
      for (const s of spies) s.mockRestore();
    }
  });
});

describe(`streams (${VARIANT})`, () => {
  const concat = (parts) => Buffer.concat(parts.map((p) => Buffer.from(p)));

  it('equal one-shot at every split point, for every mode', () => {
    const key = rand(32);
    const iv = rand(16);
    const nonce = rand(12);
    const aad = rand(20);
    for (const len of [0, 1, 15, 16, 17, 33, 64, 100, 257]) {
      const msg = rand(len);
      const cbc = api.aesCbcEncrypt(key, iv, msg);
      const ctr = api.aesCtr(key, iv, msg);
      const gcm = api.aesGcmSeal(key, nonce, msg, aad);
      for (let s = 0; s <= len; s++) {
        const a = msg.subarray(0, s);
        const b = msg.subarray(s);
        let e = api.createAesCbcEncryptor(key, iv);
        expect(hex(concat([e.update(a), e.update(b), e.final()]))).toBe(hex(cbc));
        const cut = Math.min(s, cbc.length);
        e = api.createAesCbcDecryptor(key, iv);
        expect(hex(concat([e.update(cbc.subarray(0, cut)), e.update(cbc.subarray(cut)), e.final()]))).toBe(hex(msg));
        e = api.createAesCtr(key, iv);
        expect(hex(concat([e.update(a), e.update(b), e.final()]))).toBe(hex(ctr));
        e = api.createAesGcmEncryptor(key, nonce, aad);
        const body = concat([e.update(a), e.update(b)]);
        expect(hex(concat([body, e.final()]))).toBe(hex(gcm));
        e = api.createAesGcmDecryptor(key, nonce).setAAD(aad.subarray(0, s % 21)).setAAD(aad.subarray(s % 21));
        const plain = concat([e.update(gcm.subarray(0, s)), e.update(gcm.subarray(s, len))]);
        e.final(gcm.subarray(len));
        expect(hex(plain)).toBe(hex(msg));
        const h = api.createHmac('sha256', key).update(a).update(b).digest();
        expect(hex(h)).toBe(hex(api.hmacSha256(key, msg)));
        expect(hex(api.createHash('sha512').update(a).update(b).digest())).toBe(hex(api.sha512(msg)));
      }
    }
  });

  it('many random chunks of a large input equal one-shot', () => {
    const key = rand(32);
    const iv = rand(16);
    const msg = rand(300_000);
    const streams = [api.createAesCbcEncryptor(key, iv), api.createAesCtr(key, iv), api.createAesGcmEncryptor(key, iv.subarray(0, 12))];
    const outs = streams.map(() => []);
    const hash = api.createHash('sha256');
    for (let off = 0; off < msg.length; ) {
      const n = Math.min(msg.length - off, Math.floor(Math.random() * 5000));
      const chunk = msg.subarray(off, off + n);
      streams.forEach((s, i) => outs[i].push(s.update(chunk)));
      hash.update(chunk);
      off += n;
    }
    streams.forEach((s, i) => outs[i].push(s.final()));
    expect(concat(outs[0]).equals(Buffer.from(api.aesCbcEncrypt(key, iv, msg)))).toBe(true);
    expect(concat(outs[1]).equals(Buffer.from(api.aesCtr(key, iv, msg)))).toBe(true);
    expect(concat(outs[2]).equals(Buffer.from(api.aesGcmSeal(key, iv.subarray(0, 12), msg)))).toBe(true);
    expect(hex(hash.digest())).toBe(hex(api.sha256(msg)));
  });

  it('reject a forged GCM tag and bad CBC padding at final, and refuse use after final or destroy', () => {
    const key = rand(32);
    const nonce = rand(12);
    const sealed = api.aesGcmSeal(key, nonce, rand(50));
    const bad = sealed.slice();
    bad[bad.length - 1] ^= 1;
    const d = api.createAesGcmDecryptor(key, nonce);
    d.update(bad.subarray(0, 50));
    expect(codeOf(() => d.final(bad.subarray(50)))).toBe('ERR_AUTH_TAG');
    expect(codeOf(() => d.update(new Uint8Array(1)))).toBe('ERR_STREAM_STATE');
    const g = api.createAesGcmDecryptor(key, nonce);
    expect(codeOf(() => g.final(new Uint8Array(15)))).toBe('ERR_AUTH_TAG');
    expect(codeOf(() => g.final(new Uint8Array(16))), 'a failed final ends the stream').toBe('ERR_STREAM_STATE');
    // A tag of 64 MiB is refused as any tag of the wrong length is, without a copy into wasm memory:
    // the stream is ended and freed, and memory does not grow.
    const grown = api.memoryStats().wasmMemoryBytes;
    const huge = api.createAesGcmDecryptor(key, nonce);
    expect(codeOf(() => huge.final(new Uint8Array(64 << 20)))).toBe('ERR_AUTH_TAG');
    expect(codeOf(() => huge.update(new Uint8Array(1)))).toBe('ERR_STREAM_STATE');
    expect(api.memoryStats().wasmMemoryBytes).toBe(grown);

    const e = api.createAesGcmEncryptor(key, nonce);
    e.update(new Uint8Array(3));
    expect(codeOf(() => e.setAAD(new Uint8Array(3)))).toBe('ERR_STREAM_STATE');
    e.destroy();
    e.destroy();
    expect(codeOf(() => e.final())).toBe('ERR_STREAM_STATE');

    // Two blocks whose last decrypts to a block ending in 0x00, never valid padding (random blocks
    // end in a valid pad 1 time in 256): C1 = E(P xor C0), so D(C1) xor C0 = P.
    const c0 = rand(16);
    const last = rand(16);
    last[15] = 0;
    const c1 = api.aesCbcEncrypt(key, c0, last).subarray(0, 16);
    const c = api.createAesCbcDecryptor(key, rand(16));
    c.update(new Uint8Array([...c0, ...c1]));
    expect(codeOf(() => c.final())).toBe('ERR_BAD_PADDING');
    const short = api.createAesCbcDecryptor(key, rand(16));
    short.update(rand(20));
    expect(codeOf(() => short.final())).toBe('ERR_DATA_LENGTH');
  });
});

describe(`output buffers (${VARIANT})`, () => {
  it('gives every AES output its own ArrayBuffer, never wasm memory or a pool shared with other outputs', () => {
    const key = new Uint8Array(32).fill(9);
    const iv = new Uint8Array(16).fill(3);
    const pt = Uint8Array.from({ length: 1000 }, (_, i) => i & 255);
    for (const native of [false, true]) {
      const sealed = api.aesGcmSeal(key, iv.subarray(0, 12), pt, undefined, { native });
      const cbc = api.aesCbcEncrypt(key, iv, pt, { native });
      const outputs = [
        sealed,
        cbc,
        api.aesGcmOpen(key, iv.subarray(0, 12), sealed, undefined, { native }),
        api.aesCbcDecrypt(key, iv, cbc, { native }),
        api.aesCtr(key, iv, pt, { native }),
      ];
      for (const out of outputs) {
        expect(out.byteOffset, `native: ${native}`).toBe(0);
        expect(out.buffer.byteLength, `native: ${native}`).toBe(out.length);
      }
      expect(hex(outputs[2])).toBe(hex(pt));
      expect(hex(outputs[3])).toBe(hex(pt));
    }
  });
});

describe(`key material in its own memory (${VARIANT})`, () => {
  it('gives keys, agreements, signatures, HKDF output and Signal outputs each an ArrayBuffer of its own', () => {
    const own = (label, out) => {
      expect(out.byteOffset, label).toBe(0);
      expect(out.buffer.byteLength, label).toBe(out.length);
    };
    const id = api.generateKeyPair();
    const bob = api.generateKeyPair();
    const spk = api.generateKeyPair();
    own('privKey', id.privKey);
    own('pubKey', id.pubKey);
    own('agreement', api.calculateAgreement(bob.pubKey, id.privKey));
    own('signature', api.calculateSignature(id.privKey, new Uint8Array(100)));
    // 80 and 112 B: inside the pooled range of the codec's outputs.
    for (const n of [32, 80, 112]) own(`hkdf ${n}`, api.hkdf(new Uint8Array(32).fill(1), n, { info: 'x' }));
    const s = api.signalSessions;
    const record = s.initOutgoing(undefined, id, {
      identityKey: bob.pubKey,
      registrationId: 7,
      signedPreKey: { keyId: 1, publicKey: spk.pubKey, signature: api.calculateSignature(bob.privKey, spk.pubKey) },
    });
    own('session record', record);
    const sent = s.encrypt(record, id.pubKey, 5, new Uint8Array(100).fill(3));
    own('encrypted record', sent.record);
    own('message body', sent.body);
    const group = api.senderKeys.create(undefined);
    own('sender-key record', group.record);
    own('distribution message', group.distributionMessage);
    const g = api.senderKeys.encrypt(group.record, new Uint8Array(100));
    own('group ciphertext', g.ciphertext);
    own('group record', g.record);
  });
});

describe(`errors (${VARIANT})`, () => {
  it('has a stable code for every bad input', () => {
    const key = rand(32);
    const iv = rand(16);
    expect(codeOf(() => api.aesCbcEncrypt(rand(16), iv, rand(5)))).toBe('ERR_KEY_LENGTH');
    expect(codeOf(() => api.aesCbcEncrypt(rand(33), iv, rand(5)))).toBe('ERR_KEY_LENGTH');
    expect(codeOf(() => api.aesCbcEncrypt(key, rand(12), rand(5)))).toBe('ERR_IV_LENGTH');
    expect(codeOf(() => api.aesCtr(key, rand(17), rand(5)))).toBe('ERR_IV_LENGTH');
    expect(codeOf(() => api.aesGcmSeal(key, new Uint8Array(0), rand(5)))).toBe('ERR_IV_LENGTH');
    expect(codeOf(() => api.aesGcmOpen(key, rand(12), rand(15)))).toBe('ERR_DATA_LENGTH');
    expect(codeOf(() => api.aesCbcDecrypt(key, iv, rand(15)))).toBe('ERR_DATA_LENGTH');
    expect(codeOf(() => api.aesCbcDecrypt(key, iv, new Uint8Array(0)))).toBe('ERR_DATA_LENGTH');
    expect(codeOf(() => api.hkdf(key, 8161))).toBe('ERR_OUTPUT_LENGTH');
    expect(codeOf(() => api.hkdf(key, -1))).toBe('ERR_OUTPUT_LENGTH');
    expect(codeOf(() => api.hkdf(key, 1.5))).toBe('ERR_OUTPUT_LENGTH');
    expect(codeOf(() => api.sha256('text'))).toBe('ERR_TYPE');
    expect(codeOf(() => api.aesGcmSeal(key, rand(12), rand(1), 'aad'))).toBe('ERR_TYPE');
    expect(codeOf(() => api.createHash('md5'))).toBe('ERR_TYPE');
    expect(codeOf(() => api.createAesCtr(key, rand(8)))).toBe('ERR_IV_LENGTH');
    expect(api.hkdf(key, 0).length).toBe(0);
    expect(api.constantTimeEqual(rand(0), rand(0))).toBe(true);
    const a = rand(64);
    expect(api.constantTimeEqual(a, a.slice())).toBe(true);
    expect(api.constantTimeEqual(a, a.subarray(1))).toBe(false);
    const b = a.slice();
    b[63] ^= 0x80;
    expect(api.constantTimeEqual(a, b)).toBe(false);
  });

  it('never returns plaintext for a forged GCM message or bad padding', () => {
    const key = rand(32);
    const nonce = rand(12);
    const sealed = api.aesGcmSeal(key, nonce, rand(64));
    for (let i = 0; i < sealed.length * 8; i += 7) {
      const bad = sealed.slice();
      bad[i >> 3] ^= 1 << (i & 7);
      expect(codeOf(() => api.aesGcmOpen(key, nonce, bad))).toBe('ERR_AUTH_TAG');
    }
    expect(codeOf(() => api.aesGcmOpen(key, nonce, sealed, new Uint8Array([1])))).toBe('ERR_AUTH_TAG');
  });
});

describe(`hkdf with text salt and info (${VARIANT})`, () => {
  it('takes strings as UTF-8, as whatsapp-rust-bridge and Baileys 7 call it, equal to node:crypto', async () => {
    const api = await loadVariant();
    const ikm = nodeCrypto.randomBytes(32);
    for (const [salt, info] of [['', 'WhatsApp Image Keys'], ['sälz ✓', 'WhatsApp Mutation Keys'], [undefined, 'ünïcødé']]) {
      const want = Buffer.from(nodeCrypto.hkdfSync('sha256', ikm, Buffer.from(salt ?? ''), Buffer.from(info), 112));
      expect(Buffer.from(api.hkdf(ikm, 112, { salt, info })).equals(want), `${salt} / ${info}`).toBe(true);
    }
  });
});
