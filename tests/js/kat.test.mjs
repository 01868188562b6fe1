// Known answers through the JS API, from files every machine has after scripts/setup.sh (Debian's
// python3-cryptography-vectors, see vectors.mjs): NIST CAVP AES-256 CBC/GCM and SHA-2, RFC 3686 CTR,
// RFC 4231 HMAC, RFC 5869 HKDF, RFC 7748 X25519 and RFC 8032's Ed25519 list. Each test pins the
// number of cases it ran.
import nodeCrypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { hex, loadVariant, unhex, VARIANT } from './variant.mjs';
import { cavpText, readKat } from './vectors.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const concat = (...parts) => new Uint8Array(Buffer.concat(parts));

describe(`known answers (${VARIANT})`, () => {
  it('AES-256-CBC: every case of the five CAVP files, both directions', () => {
    let n = 0;
    for (const file of ['CBCGFSbox256', 'CBCKeySbox256', 'CBCVarKey256', 'CBCVarTxt256', 'CBCMMT256']) {
      for (const { fields: r } of readKat(`ciphers/AES/CBC/${file}.rsp`)) {
        const [key, iv, pt, ct] = [r.KEY, r.IV, r.PLAINTEXT, r.CIPHERTEXT].map(unhex);
        const where = `${file} COUNT ${r.COUNT}`;
        // The API pads (PKCS#7): the CAVP blocks are the ciphertext's prefix, and one more block
        // (a whole padding block, encrypted with the last ciphertext block as IV) decrypts to pt.
        const padded = api.aesCbcEncrypt(key, iv, pt);
        expect(padded.length, where).toBe(pt.length + 16);
        expect(hex(padded.subarray(0, pt.length)), where).toBe(r.CIPHERTEXT.toLowerCase());
        const padBlock = api.aesCbcEncrypt(key, ct.subarray(ct.length - 16), new Uint8Array(0));
        expect(hex(api.aesCbcDecrypt(key, iv, concat(ct, padBlock))), where).toBe(r.PLAINTEXT.toLowerCase());
        n++;
      }
    }
    expect(n).toBe(830);
  });

  it('AES-256-CTR: RFC 3686', () => {
    const cases = readKat('ciphers/AES/CTR/aes-256-ctr.txt');
    for (const { fields: r } of cases) {
      expect(hex(api.aesCtr(unhex(r.KEY), unhex(r.IV), unhex(r.PLAINTEXT)))).toBe(r.CIPHERTEXT.toLowerCase());
    }
    expect(cases.length).toBe(3);
  });

  it('AES-256-GCM: every CAVP case with a 96-bit IV and a 128-bit tag, sealed and opened', () => {
    const ours = ({ section: s }) => s.Keylen === '256' && s.IVlen === '96' && s.Taglen === '128';
    let sealed = 0;
    for (const rec of readKat('ciphers/AES/GCM/gcmEncryptExtIV256.rsp').filter(ours)) {
      const r = rec.fields;
      expect(hex(api.aesGcmSeal(unhex(r.Key), unhex(r.IV), unhex(r.PT), unhex(r.AAD))), `Count ${r.Count}`).toBe(
        r.CT + r.Tag,
      );
      sealed++;
    }
    let opened = 0;
    let refused = 0;
    for (const rec of readKat('ciphers/AES/GCM/gcmDecrypt256.rsp').filter(ours)) {
      const r = rec.fields;
      const open = () => api.aesGcmOpen(unhex(r.Key), unhex(r.IV), unhex(r.CT + r.Tag), unhex(r.AAD));
      if ('FAIL' in r) {
        expect(open).toThrow(expect.objectContaining({ code: 'ERR_AUTH_TAG' }));
        refused++;
      } else {
        expect(hex(open()), `Count ${r.Count}`).toBe(r.PT);
        opened++;
      }
    }
    expect(sealed).toBe(375);
    expect(opened + refused).toBe(375);
    expect(refused).toBe(191);
  });

  it('SHA-256 and SHA-512: the CAVP short and long message files', () => {
    let n = 0;
    for (const file of ['SHA256ShortMsg', 'SHA256LongMsg', 'SHA512ShortMsg', 'SHA512LongMsg']) {
      const fn = file.startsWith('SHA512') ? api.sha512 : api.sha256;
      for (const { fields: r } of readKat(`hashes/SHA2/${file}.rsp`)) {
        const msg = r.Len === '0' ? new Uint8Array(0) : unhex(r.Msg); // the empty message is written "00"
        expect(msg.length * 8).toBe(Number(r.Len));
        expect(hex(fn(msg)), `${file} Len ${r.Len}`).toBe(r.MD);
        n++;
      }
    }
    expect(n).toBe(65 + 64 + 129 + 128);
  });

  it('HMAC-SHA256 and HMAC-SHA512: RFC 4231, one-shot and streaming', () => {
    let n = 0;
    for (const [bits, fn] of [
      [256, api.hmacSha256],
      [512, api.hmacSha512],
    ]) {
      for (const { fields: r } of readKat(`HMAC/rfc-4231-sha${bits}.txt`)) {
        const [key, msg] = [unhex(r.Key), unhex(r.Msg)];
        expect(hex(fn(key, msg))).toBe(r.MD);
        const h = api.createHmac(`sha${bits}`, key);
        h.update(msg.subarray(0, 7));
        h.update(msg.subarray(7));
        expect(hex(h.digest())).toBe(r.MD);
        n++;
      }
    }
    expect(n).toBe(12);
  });

  it('HKDF-SHA256: RFC 5869 and a 1,200-byte output', () => {
    let n = 0;
    for (const file of ['KDF/rfc-5869-HKDF-SHA256.txt', 'KDF/hkdf-generated.txt']) {
      for (const { fields: r } of readKat(file)) {
        expect(r.Hash).toBe('SHA-256');
        const out = api.hkdf(unhex(r.IKM), Number(r.L), { salt: unhex(r.salt), info: unhex(r.info) });
        expect(hex(out), `${file} COUNT ${r.COUNT}`).toBe(r.OKM);
        n++;
      }
    }
    expect(n).toBe(4);
  });

  it('X25519: RFC 7748', () => {
    const cases = readKat('asymmetric/X25519/rfc7748.txt');
    for (const { fields: r } of cases) {
      expect(hex(api.calculateAgreement(unhex(r.INPUT_U), unhex(r.INPUT_SCALAR)))).toBe(r.OUTPUT_U);
    }
    expect(cases.length).toBe(3);
  });

  // XEdDSA verification is Ed25519 verification with the Edwards key rebuilt from the Montgomery u
  // and the sign bit carried in bit 7 of the signature's last byte. Each of the 1,024 Ed25519
  // signatures, with that bit set from its key, verifies under the key's u; our signatures with
  // the key's clamped scalar verify under node:crypto's Ed25519 once the bit is cleared.
  it("Ed25519: RFC 8032's list of 1,024 signatures through XEdDSA, and ours through node:crypto", () => {
    const p = 2n ** 255n - 19n;
    const pow = (b, e) => {
      let r = 1n;
      for (b %= p; e > 0n; e >>= 1n, b = (b * b) % p) if (e & 1n) r = (r * b) % p;
      return r;
    };
    const le = (u8) => BigInt(`0x${hex(Uint8Array.from(u8).reverse()) || '0'}`);
    const toLe = (x) => unhex(x.toString(16).padStart(64, '0')).reverse();
    const lines = cavpText('asymmetric/Ed25519/sign.input').split('\n').filter(Boolean);
    let n = 0;
    for (const line of lines) {
      const [skHex, pkHex, msgHex, sigHex] = line.split(':');
      const [pk, msg] = [unhex(pkHex), unhex(msgHex)];
      const y = le(pk) & ((1n << 255n) - 1n);
      const u = toLe((((1n + y) % p) * pow((1n - y + p) % p, p - 2n)) % p);
      const sig = unhex(sigHex.slice(0, 128));
      sig[63] |= pk[31] & 0x80;
      expect(api.verifySignature(u, msg, sig), `line ${n + 1}`).toBe(true);
      expect(api.verifySignature(u, concat(msg, Uint8Array.of(0)), sig)).toBe(false);
      if (n % 16 === 0) {
        const scalar = nodeCrypto.createHash('sha512').update(unhex(skHex.slice(0, 64))).digest().subarray(0, 32);
        expect(hex(api.getPublicFromPrivateKey(scalar).subarray(1))).toBe(hex(u));
        const ours = api.calculateSignature(scalar, msg);
        expect(ours[63] & 0x80).toBe(pk[31] & 0x80);
        ours[63] &= 0x7f;
        const key = nodeCrypto.createPublicKey({
          key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(pk).toString('base64url') },
          format: 'jwk',
        });
        expect(nodeCrypto.verify(null, msg, key, ours)).toBe(true);
      }
      n++;
    }
    expect(n).toBe(1024);
  });
});
