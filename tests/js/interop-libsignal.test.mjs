// Live interop with npm libsignal@6.0.0 (libsignal-node): keys, agreements and signatures cross
// over in both directions.
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { hex, loadVariant, VARIANT } from './variant.mjs';

const require = createRequire(import.meta.url);
const lsCurve = require('libsignal/src/curve');
const lsKeyhelper = require('libsignal/src/keyhelper');

let api;
beforeAll(async () => {
  api = await loadVariant();
});

const ROUNDS = 40;

describe(`interop with libsignal-node 6.0.0 (${VARIANT})`, () => {
  it('derives the same public key from libsignal-node private keys and vice versa', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const theirs = lsCurve.generateKeyPair();
      expect(hex(api.getPublicFromPrivateKey(theirs.privKey))).toBe(hex(theirs.pubKey));
      const ours = api.generateKeyPair();
      expect(hex(lsCurve.getPublicFromPrivateKey(Buffer.from(ours.privKey)))).toBe(hex(ours.pubKey));
    }
  });

  it('computes the same agreement across the two libraries, both directions', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const theirs = lsCurve.generateKeyPair();
      const ours = api.generateKeyPair();
      const a = api.calculateAgreement(theirs.pubKey, ours.privKey);
      const b = lsCurve.calculateAgreement(Buffer.from(ours.pubKey), theirs.privKey);
      expect(hex(a)).toBe(hex(b));
      // libsignal-node's own pairs, computed by us, equal its own result.
      const other = lsCurve.generateKeyPair();
      expect(hex(api.calculateAgreement(other.pubKey, theirs.privKey))).toBe(
        hex(lsCurve.calculateAgreement(other.pubKey, theirs.privKey)),
      );
    }
  });

  it('verifies libsignal-node signatures, and libsignal-node verifies ours', () => {
    for (let i = 0; i < ROUNDS; i++) {
      const msg = crypto.getRandomValues(new Uint8Array(1 + ((i * 37) % 300)));
      const theirs = lsCurve.generateKeyPair();
      const theirSig = lsCurve.calculateSignature(theirs.privKey, Buffer.from(msg));
      expect(api.verifySignature(theirs.pubKey, msg, theirSig)).toBe(true);

      const ours = api.generateKeyPair();
      const ourSig = api.calculateSignature(ours.privKey, msg);
      expect(lsCurve.verifySignature(Buffer.from(ours.pubKey), Buffer.from(msg), Buffer.from(ourSig))).toBe(true);

      // Cross-checked rejections: a wrong key fails in both libraries.
      expect(api.verifySignature(ours.pubKey, msg, theirSig)).toBe(false);
      expect(lsCurve.verifySignature(theirs.pubKey, Buffer.from(msg), Buffer.from(ourSig))).toBe(false);
    }
  });

  it('signs libsignal-node signed pre-keys (over the 33-byte key) that libsignal-node accepts', () => {
    const identity = api.generateKeyPair();
    const signed = lsKeyhelper.generateSignedPreKey(
      { pubKey: Buffer.from(identity.pubKey), privKey: Buffer.from(identity.privKey) },
      7,
    );
    expect(api.verifySignature(identity.pubKey, signed.keyPair.pubKey, signed.signature)).toBe(true);
    const ourSig = api.calculateSignature(identity.privKey, signed.keyPair.pubKey);
    expect(lsCurve.verifySignature(Buffer.from(identity.pubKey), signed.keyPair.pubKey, Buffer.from(ourSig))).toBe(true);
  });
});
