// A stand-in for libsignal-node 6.0.0's `libsignal/src/curve`, built on wacore-wasm, so that
// scripts/baileys-jest.sh can run Baileys' own jest suite with our X25519/XEdDSA underneath.
//
// It keeps the original module's observable contract, not just its maths:
// - the same five exports (Baileys calls four; getPublicFromPrivateKey is there for completeness);
// - keys and secrets come back as Node Buffers; public keys are 33 bytes, 0x05 then the u-coordinate;
// - the same argument checks, in the same order, with the same Error messages (callers such as
//   Baileys' Curve.verify only look at whether something was thrown);
// - a bad signature gives `false`, it does not throw;
// - verifySignature's fourth argument (isInit) still skips the check and answers true.
// One difference cannot be hidden: libsignal-node's signatures are deterministic, ours use fresh
// randomness (both verify everywhere; only byte-for-byte comparisons of two signatures differ).
import { loadSync } from '../../npm/index.mjs';

// Loaded on first use, so importing the module costs nothing.
let loaded;
const wacore = () => (loaded ??= loadSync());

// Buffers as the original returns them: a zero-copy view over our fresh Uint8Array.
const toBuffer = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);

// The original only accepts Buffers for keys and names the wrong type in its message.
function checkPrivateKey(privKey) {
  if (privKey === undefined) throw new Error('Undefined private key');
  if (!(privKey instanceof Buffer)) throw new Error(`Invalid private key type: ${privKey.constructor.name}`);
  if (privKey.byteLength != 32) throw new Error(`Incorrect private key length: ${privKey.byteLength}`);
}

// Gives the bare 32-byte u-coordinate: 33 bytes must start with 0x05; 32 bare bytes are accepted
// with the same console warning the original prints.
function publicU(pubKey) {
  if (!(pubKey instanceof Buffer)) throw new Error(`Invalid public key type: ${pubKey.constructor.name}`);
  if (pubKey.byteLength == 33 && pubKey[0] == 5) return pubKey.slice(1);
  if (pubKey.byteLength != 32) throw new Error('Invalid public key');
  console.error('WARNING: Expected pubkey of length 33, please report the ST and client that generated the pubkey');
  return pubKey;
}

// The original hands messages and signatures to curve25519-js, which rejects anything that is not
// a Uint8Array (Buffers are) with this TypeError.
function checkUint8Array(value) {
  const tag = Object.prototype.toString.call(value);
  if (tag !== '[object Uint8Array]') throw new TypeError(`unexpected type ${tag}, use Uint8Array`);
}

/** The 33-byte public key of a private key (clamped first, as X25519 does). Like the original it
 * takes anything `new Uint8Array()` takes, and needs 32 bytes. */
export function getPublicFromPrivateKey(privKey) {
  const key = new Uint8Array(privKey);
  if (key.length !== 32) throw new Error('wrong seed length');
  return toBuffer(wacore().getPublicFromPrivateKey(key));
}

/** A fresh key pair: { pubKey: 33-byte Buffer, privKey: 32-byte clamped Buffer }. */
export function generateKeyPair() {
  const { pubKey, privKey } = wacore().generateKeyPair();
  return { pubKey: toBuffer(pubKey), privKey: toBuffer(privKey) };
}

/** X25519: the 32-byte shared secret as a Buffer. A low-order public key (all-zero secret) throws
 * what Node 20's crypto.diffieHellman throws there, which is what the original relies on. */
export function calculateAgreement(pubKey, privKey) {
  const u = publicU(pubKey);
  checkPrivateKey(privKey);
  try {
    return toBuffer(wacore().calculateAgreement(u, privKey));
  } catch (e) {
    if (e?.code !== 'ERR_LOW_ORDER_POINT') throw e;
    throw Object.assign(new Error('error:1C8000A4:Provider routines::failed during derivation'), {
      code: 'ERR_OSSL_FAILED_DURING_DERIVATION',
    });
  }
}

/** XEdDSA: a 64-byte signature Buffer. */
export function calculateSignature(privKey, message) {
  checkPrivateKey(privKey);
  if (!message) throw new Error('Invalid message');
  checkUint8Array(message);
  return toBuffer(wacore().calculateSignature(privKey, message));
}

/** Whether sig is a valid signature of msg under pubKey; true without checking when isInit is truthy. */
export function verifySignature(pubKey, msg, sig, isInit) {
  const u = publicU(pubKey);
  if (!msg) throw new Error('Invalid message');
  if (!sig || sig.byteLength != 64) throw new Error('Invalid signature');
  if (isInit) return true;
  checkUint8Array(msg);
  checkUint8Array(sig);
  return wacore().verifySignature(u, msg, sig);
}

// The original is CommonJS: an ES import of it also sees the exports object as `default`.
export default { getPublicFromPrivateKey, generateKeyPair, calculateAgreement, calculateSignature, verifySignature };
