// Curve25519 with libsignal-node's names and byte conventions: X25519 and XEdDSA.
// These are plain exports declared whole (bindings/boundary.json): the generated functions of
// plain (lib/generated/boundary.mjs) place the bytes, copy the results out and wipe the I/O buffer,
// and the generated exports check every declared length (the layout path measured 1.2-1.9% more
// instructions on them in the gate's 200-call phases, docs/architecture.md).
import { asBytes } from './args.mjs';

export function makeCurve({ plain }) {
  /** A new identity/ephemeral key pair: { pubKey: 33 bytes (0x05 || u), privKey: 32 bytes, clamped }. */
  function generateKeyPair() {
    const [privKey, pubKey] = plain.curveGenerateKeyPair();
    return { pubKey, privKey };
  }

  /** The 33-byte public key (0x05 || u) of a 32-byte private key. */
  const getPublicFromPrivateKey = (privKey) => plain.curvePublicFromPrivate(asBytes(privKey, 'privKey'));

  /** X25519 shared secret (32 bytes). Throws ERR_LOW_ORDER_POINT when it would be all zero. */
  const calculateAgreement = (pubKey, privKey) => plain.curveAgreement(asBytes(pubKey, 'pubKey'), asBytes(privKey, 'privKey'));

  /** XEdDSA signature (64 bytes) of message under a 32-byte private key, with fresh randomness. */
  const calculateSignature = (privKey, message) => plain.curveSign(asBytes(privKey, 'privKey'), asBytes(message, 'message'));

  /** As calculateSignature, with the 64 bytes of XEdDSA randomness given: deterministic, for tests
   * and vectors. Never reuse randomness with the same key in production. */
  const calculateSignatureWithRandom = (privKey, message, random) =>
    random === undefined
      ? calculateSignature(privKey, message)
      : plain.curveSignWithRandom(asBytes(privKey, 'privKey'), asBytes(message, 'message'), asBytes(random, 'random'));

  /** True when sig is a valid XEdDSA signature of message under pubKey (33 or 32 bytes). Unlike
   * libsignal-node, a fourth argument never skips the check. */
  const verifySignature = (pubKey, message, signature) =>
    plain.curveVerify(asBytes(pubKey, 'pubKey'), asBytes(message, 'message'), asBytes(signature, 'signature')) === 1;

  /** A random registration ID in 0..16383. */
  const generateRegistrationId = () => plain.registrationId();

  return {
    generateKeyPair,
    getPublicFromPrivateKey,
    calculateAgreement,
    calculateSignature,
    calculateSignatureWithRandom,
    verifySignature,
    generateRegistrationId,
  };
}
