// The Curve25519 API: libsignal-node's names and byte conventions, vectors, errors.
import { beforeAll, describe, expect, it } from 'vitest';
import { hex, loadVariant, unhex, VARIANT } from './variant.mjs';
import { WYCHEPROOF_DIR, WYCHEPROOF_NOTE, wycheproof } from './vectors.mjs';

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const codeOf = (fn) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(api.WacoreError);
    expect(e.name).toBe('WacoreError');
    return e.code;
  }
  throw new Error('expected a WacoreError');
};

// signalapp/libsignal rust/core/src/curve/curve25519.rs (test_agreement, test_signature).
const ALICE_PRIV = 'c806439dc9d2c476ffed8f2580c0888d58ab406bf7ae3698879021b96bb4bf59';
const ALICE_PUB = '1bb75966f2e93a3691dfff942bb2a466a1c08b8d78ca3f4d6df8b8bfa2e4ee28';
const BOB_PRIV = 'b03b34c33a1c44f225b662d2bf4859b8135411fa7b0386d45fb75dc5b91b4466';
const BOB_PUB = '653614993d2b15ee9e5fd3d86ce719ef4ec1daae1886a87b3f5fa9565a27a22f';
const SHARED = '325f239328941ced6e673b86ba41017448e99b649a9c3806c1dd7ca4c477e629';
const ID_PUB = 'ab7e717d4a163b7d9a1d8071dfe9dcf8cdcd1cea3339b6356be84d887e322c64';
const ID_MSG = '05edce9d9c415ca78cb7252e72c2c4a554d3eb29485a0e1d503118d1a82d99fb4a';
const ID_SIG =
  '5de88ca9a89b4a115da79109c67c9c7464a3e4180274f1cb8c63c2984e286dfbede82deb9dcd9fae0bfbb821569b3d9001bd8130cd11d486cef047bd60b86e88';

describe(`curve (${VARIANT})`, () => {
  it('generates clamped 32-byte private keys and 33-byte 0x05 public keys', () => {
    const seen = new Set();
    for (let i = 0; i < 20; i++) {
      const { pubKey, privKey } = api.generateKeyPair();
      expect(pubKey).toBeInstanceOf(Uint8Array);
      expect(Buffer.isBuffer(pubKey)).toBe(false);
      expect(pubKey.length).toBe(33);
      expect(pubKey[0]).toBe(5);
      expect(privKey.length).toBe(32);
      expect(privKey[0] & 7).toBe(0);
      expect(privKey[31] & 0xc0).toBe(0x40);
      expect(hex(api.getPublicFromPrivateKey(privKey))).toBe(hex(pubKey));
      seen.add(hex(privKey));
    }
    expect(seen.size).toBe(20);
  });

  it('derives and agrees as libsignal does (its curve25519.rs vectors)', () => {
    expect(hex(api.getPublicFromPrivateKey(unhex(ALICE_PRIV)))).toBe('05' + ALICE_PUB);
    expect(hex(api.calculateAgreement(unhex('05' + BOB_PUB), unhex(ALICE_PRIV)))).toBe(SHARED);
    expect(hex(api.calculateAgreement(unhex(ALICE_PUB), unhex(BOB_PRIV)))).toBe(SHARED);
  });

  it('accepts 33-byte 0x05 keys and bare 32-byte keys alike, Buffer or Uint8Array or ArrayBuffer', () => {
    const a = api.generateKeyPair();
    const b = api.generateKeyPair();
    const s = hex(api.calculateAgreement(b.pubKey, a.privKey));
    expect(hex(api.calculateAgreement(b.pubKey.subarray(1), a.privKey))).toBe(s);
    expect(hex(api.calculateAgreement(Buffer.from(b.pubKey), Buffer.from(a.privKey)))).toBe(s);
    expect(hex(api.calculateAgreement(b.pubKey.slice().buffer, a.privKey))).toBe(s);
    expect(hex(api.calculateAgreement(a.pubKey, b.privKey))).toBe(s);
  });

  it('verifies libsignal signatures and rejects every single-bit change', () => {
    const pub = unhex('05' + ID_PUB);
    const msg = unhex(ID_MSG);
    const sig = unhex(ID_SIG);
    expect(api.verifySignature(pub, msg, sig)).toBe(true);
    expect(api.verifySignature(pub.subarray(1), msg, sig)).toBe(true);
    for (let i = 0; i < 64 * 8; i++) {
      const bad = sig.slice();
      bad[i >> 3] ^= 1 << (i & 7);
      expect(api.verifySignature(pub, msg, bad)).toBe(false);
    }
    const badMsg = msg.slice();
    badMsg[0] ^= 1;
    expect(api.verifySignature(pub, badMsg, sig)).toBe(false);
  });

  it('signs with explicit randomness exactly as libsignal-protocol-c (curvesigs_fast_test)', () => {
    const priv = unhex('0000000000000000bd0000000000000000000000000000000000000000000040');
    const sig = api.calculateSignatureWithRandom(priv, new Uint8Array(200), new Uint8Array(64));
    expect(hex(sig)).toBe(
      'cf873d0379ac20e8893e5567ee0f8951f8db840d26b243b463526689d01ca718ac189fb1678574ebdde569330659448b0bd6c1973f7d780ab39518626803d782',
    );
    expect(api.verifySignature(api.getPublicFromPrivateKey(priv), new Uint8Array(200), sig)).toBe(true);
  });

  it('signs with fresh randomness: two signatures differ, both verify, at many message lengths', () => {
    const { pubKey, privKey } = api.generateKeyPair();
    const other = api.generateKeyPair();
    for (const n of [0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 1000, 70_000]) {
      const msg = crypto.getRandomValues(new Uint8Array(Math.min(n, 65536)));
      const full = n > 65536 ? new Uint8Array(n).fill(7) : msg;
      const s1 = api.calculateSignature(privKey, full);
      const s2 = api.calculateSignature(privKey, full);
      expect(hex(s1)).not.toBe(hex(s2));
      expect(api.verifySignature(pubKey, full, s1)).toBe(true);
      expect(api.verifySignature(pubKey, full, s2)).toBe(true);
      expect(api.verifySignature(other.pubKey, full, s1)).toBe(false);
    }
  });

  it('does not modify its inputs', () => {
    const a = api.generateKeyPair();
    const b = api.generateKeyPair();
    const msg = new Uint8Array([1, 2, 3]);
    const copies = [a.privKey, b.pubKey, msg].map(hex);
    api.calculateAgreement(b.pubKey, a.privKey);
    const sig = api.calculateSignature(a.privKey, msg);
    api.verifySignature(a.pubKey, msg, sig);
    expect([a.privKey, b.pubKey, msg].map(hex)).toEqual(copies);
  });

  it('throws typed errors with stable codes for wrong types and lengths', () => {
    const { pubKey, privKey } = api.generateKeyPair();
    const msg = new Uint8Array(4);
    const sig = api.calculateSignature(privKey, msg);
    expect(codeOf(() => api.calculateAgreement(pubKey, new Uint8Array(31)))).toBe('ERR_KEY_LENGTH');
    expect(codeOf(() => api.calculateAgreement(pubKey, new Uint8Array(33)))).toBe('ERR_KEY_LENGTH');
    expect(codeOf(() => api.calculateAgreement(new Uint8Array(34), privKey))).toBe('ERR_KEY_LENGTH');
    expect(codeOf(() => api.calculateAgreement(new Uint8Array(1 << 20), privKey))).toBe('ERR_KEY_LENGTH');
    expect(codeOf(() => api.calculateAgreement(new Uint8Array(0), privKey))).toBe('ERR_KEY_LENGTH');
    const wrongType = pubKey.slice();
    wrongType[0] = 1;
    expect(codeOf(() => api.calculateAgreement(wrongType, privKey))).toBe('ERR_KEY_TYPE');
    expect(codeOf(() => api.verifySignature(wrongType, msg, sig))).toBe('ERR_KEY_TYPE');
    expect(codeOf(() => api.verifySignature(pubKey, msg, sig.subarray(1)))).toBe('ERR_SIGNATURE_LENGTH');
    expect(codeOf(() => api.verifySignature(pubKey, msg, new Uint8Array(65)))).toBe('ERR_SIGNATURE_LENGTH');
    expect(codeOf(() => api.calculateSignature(new Uint8Array(64), msg))).toBe('ERR_KEY_LENGTH');
    expect(codeOf(() => api.getPublicFromPrivateKey(new Uint8Array(33)))).toBe('ERR_KEY_LENGTH');
    expect(codeOf(() => api.calculateSignatureWithRandom(privKey, msg, new Uint8Array(32)))).toBe('ERR_RANDOM_LENGTH');
    for (const bad of [undefined, null, 'abc', 42, [1, 2, 3], {}]) {
      expect(codeOf(() => api.calculateAgreement(bad, privKey))).toBe('ERR_TYPE');
      expect(codeOf(() => api.calculateAgreement(pubKey, bad))).toBe('ERR_TYPE');
      expect(codeOf(() => api.calculateSignature(privKey, bad))).toBe('ERR_TYPE');
      expect(codeOf(() => api.verifySignature(pubKey, msg, bad))).toBe('ERR_TYPE');
    }
    // The instance still works after every failure above.
    expect(api.verifySignature(pubKey, msg, sig)).toBe(true);
  });

  it.skipIf(!WYCHEPROOF_DIR)(`rejects low-order public keys (all-zero shared secret) and computes every other Wycheproof case: ${WYCHEPROOF_NOTE}`, () => {
    const doc = wycheproof('x25519_test.json');
    let rejected = 0;
    let computed = 0;
    for (const group of doc.testGroups) {
      for (const t of group.tests) {
        const pub = unhex(t.public);
        const priv = unhex(t.private);
        if (t.flags.includes('ZeroSharedSecret')) {
          expect(codeOf(() => api.calculateAgreement(pub, priv)), `tcId ${t.tcId}`).toBe('ERR_LOW_ORDER_POINT');
          rejected++;
        } else {
          expect(hex(api.calculateAgreement(pub, priv)), `tcId ${t.tcId}`).toBe(t.shared);
          computed++;
        }
      }
    }
    expect(rejected + computed).toBe(518);
    expect(rejected).toBeGreaterThan(0);
  });

  it('generates registration IDs in 0..16383 using the whole range', () => {
    let max = 0;
    for (let i = 0; i < 2000; i++) {
      const id = api.generateRegistrationId();
      expect(Number.isInteger(id)).toBe(true);
      expect(id).toBeGreaterThanOrEqual(0);
      expect(id).toBeLessThanOrEqual(0x3fff);
      max = Math.max(max, id);
    }
    expect(max).toBeGreaterThan(0x3000); // libsignal-node 6.0.0 only ever yields 0..255
  });
});
