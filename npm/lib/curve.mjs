// Curve25519 with libsignal-node's names and byte conventions: X25519 and XEdDSA.
// These are plain exports (bindings/boundary.json: the layout path measured 1.2-1.9% more
// instructions on them in the gate's 200-call phases, 0.14% after 3,000 warm-up calls,
// docs/architecture.md); their sizes come from the declaration.
import { asBytes } from './args.mjs';
import { PRIVATE_KEY_BYTES, PUBLIC_KEY_BYTES, SIGNATURE_BYTES } from './generated/boundary.mjs';

const KEY = PRIVATE_KEY_BYTES; // also the length of a public key's u, after the type byte
const PUB = PUBLIC_KEY_BYTES;
const SIG = SIGNATURE_BYTES;

export function makeCurve({ M, plain, put, scratch }) {
  /** A new identity/ephemeral key pair: { pubKey: 33 bytes (0x05 || u), privKey: 32 bytes, clamped }. */
  function generateKeyPair() {
    return scratch(2 * KEY, (p) => {
      plain.curveGenerateKeyPair(p);
      const heap = M.HEAPU8;
      const pubKey = new Uint8Array(PUB);
      pubKey[0] = 5;
      pubKey.set(heap.subarray(p + KEY, p + 2 * KEY), 1);
      return { pubKey, privKey: heap.slice(p, p + KEY) };
    });
  }

  /** The 33-byte public key (0x05 || u) of a 32-byte private key. */
  function getPublicFromPrivateKey(privKey) {
    const priv = asBytes(privKey, 'privKey');
    return scratch(2 * KEY, (p) => {
      put(M.HEAPU8, p, priv, KEY);
      plain.curvePublicFromPrivate(p, priv.length, p + KEY);
      const out = new Uint8Array(PUB);
      out[0] = 5;
      out.set(M.HEAPU8.subarray(p + KEY, p + 2 * KEY), 1);
      return out;
    });
  }

  /** X25519 shared secret (32 bytes). Throws ERR_LOW_ORDER_POINT when it would be all zero. */
  function calculateAgreement(pubKey, privKey) {
    const pub = asBytes(pubKey, 'pubKey');
    const priv = asBytes(privKey, 'privKey');
    return scratch(3 * KEY + PUB, (p) => {
      const heap = M.HEAPU8;
      put(heap, p, priv, KEY);
      put(heap, p + 2 * KEY, pub, PUB);
      plain.curveAgreement(p + 2 * KEY, pub.length, p, priv.length, p + KEY);
      return M.HEAPU8.slice(p + KEY, p + 2 * KEY);
    });
  }

  // Layout for signing: private key, then signature, then 64 bytes of randomness, then the message.
  function sign(privKey, message, random) {
    const priv = asBytes(privKey, 'privKey');
    const msg = asBytes(message, 'message');
    const rnd = random === undefined ? undefined : asBytes(random, 'random');
    const head = KEY + SIG + SIG;
    return scratch(head + msg.length, (p) => {
      const heap = M.HEAPU8;
      put(heap, p, priv, KEY);
      heap.set(msg, p + head);
      if (rnd === undefined) {
        plain.curveSign(p, priv.length, p + head, msg.length, p + KEY);
      } else {
        put(heap, p + KEY + SIG, rnd, SIG);
        plain.curveSignWithRandom(p, priv.length, p + head, msg.length, p + KEY + SIG, rnd.length, p + KEY);
      }
      return M.HEAPU8.slice(p + KEY, p + KEY + SIG);
    });
  }

  /** XEdDSA signature (64 bytes) of message under a 32-byte private key, with fresh randomness. */
  const calculateSignature = (privKey, message) => sign(privKey, message, undefined);

  /** As calculateSignature, with the 64 bytes of XEdDSA randomness given: deterministic, for tests
   * and vectors. Never reuse randomness with the same key in production. */
  const calculateSignatureWithRandom = (privKey, message, random) => sign(privKey, message, random);

  /** True when sig is a valid XEdDSA signature of message under pubKey (33 or 32 bytes). Unlike
   * libsignal-node, a fourth argument never skips the check. */
  function verifySignature(pubKey, message, signature) {
    const pub = asBytes(pubKey, 'pubKey');
    const msg = asBytes(message, 'message');
    const sig = asBytes(signature, 'signature');
    const head = PUB + 1 + SIG;
    return scratch(head + msg.length, (p) => {
      const heap = M.HEAPU8;
      put(heap, p, pub, PUB);
      put(heap, p + PUB + 1, sig, SIG);
      heap.set(msg, p + head);
      return plain.curveVerify(p, pub.length, p + head, msg.length, p + PUB + 1, sig.length) === 1;
    });
  }

  /** A random registration ID in 0..16383. */
  function generateRegistrationId() {
    return plain.registrationId();
  }

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
