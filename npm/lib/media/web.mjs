// Whole-file media on Web Crypto, for the asynchronous calls in browsers and workers (no node:crypto
// there) from WEB_FROM's sizes (lib/internal/native.mjs decides). The same protocol steps as the
// core's: keys derived in wasm and imported as non-extractable CryptoKeys (the raw bytes wiped as soon
// as Web Crypto has copied them, before the first await), the input copied once when the call is made
// (so bytes changed meanwhile change nothing), the MAC and hashes compared in wasm in constant time,
// and nothing decrypted before the MAC matches.
import { WacoreError } from '../errors.mjs';
import { authFailed, BLOCK, checkLength, copy, MAC, parts } from './format.mjs';

// A Web Crypto promise whose failure (none is expected but bad padding) rejects as ERR_INTERNAL, and
// is never reported as unhandled when an earlier step's failure left it unawaited.
const webCall = (promise) => {
  const p = promise.then(
    (r) => r,
    (e) => {
      throw new WacoreError('ERR_INTERNAL', `Web Crypto failed: ${e?.name ?? 'Error'}`, { cause: e });
    },
  );
  p.catch(() => {});
  return p;
};
const bytesOf = async (promise) => new Uint8Array(await webCall(promise));

/** { encrypt(keys, d, mediaKey), decrypt(keys, e, encSha, sha) }, both async, on `subtle`;
 * constantTimeEqual(a, b) is the core's comparison. */
export function makeWebMedia(subtle, constantTimeEqual) {
  const webKeys = (keys) => {
    const [iv, cipher, mac] = parts(keys);
    const aes = webCall(subtle.importKey('raw', cipher, 'AES-CBC', false, ['encrypt', 'decrypt']));
    const hmac = webCall(subtle.importKey('raw', mac, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']));
    const ivCopy = iv.slice();
    keys.fill(0);
    return { iv: ivCopy, aes, hmac };
  };
  // HMAC-SHA256(macKey, iv || ct) truncated, where `input` holds iv || ct.
  const webMac = async (k, input) => (await bytesOf(subtle.sign('HMAC', await k.hmac, input))).subarray(0, MAC);
  const webEncrypt = async (keys, d, mediaKey) => {
    const data = copy(d);
    let k;
    let input;
    try {
      k = webKeys(keys);
      const fileSha256 = webCall(subtle.digest('SHA-256', data));
      const ct = await bytesOf(subtle.encrypt({ name: 'AES-CBC', iv: k.iv }, await k.aes, data));
      input = new Uint8Array(BLOCK + ct.length);
      input.set(k.iv);
      input.set(ct, BLOCK);
      const encrypted = new Uint8Array(ct.length + MAC);
      encrypted.set(ct);
      encrypted.set(await webMac(k, input), ct.length);
      return {
        mediaKey: copy(mediaKey),
        encrypted,
        fileSha256: new Uint8Array(await fileSha256),
        fileEncSha256: await bytesOf(subtle.digest('SHA-256', encrypted)),
        fileLength: data.length,
      };
    } finally {
      // The plaintext's copy, and the derived iv wherever it was put.
      data.fill(0);
      k?.iv.fill(0);
      input?.fill(0, 0, BLOCK);
    }
  };
  const webDecrypt = async (keys, e, encSha, sha) => {
    // One copy of the file, taken now, behind the iv: iv || ciphertext || MAC. Every step reads it.
    const own = new Uint8Array(BLOCK + e.length);
    own.set(e, BLOCK);
    const k = webKeys(keys);
    own.set(k.iv);
    try {
      return await webOpen(k, own, encSha, sha);
    } finally {
      k.iv.fill(0);
      own.fill(0, 0, BLOCK);
    }
  };
  const webOpen = async (k, own, encSha, sha) => {
    const end = own.length - MAC;
    if (encSha && !constantTimeEqual(await bytesOf(subtle.digest('SHA-256', own.subarray(BLOCK))), encSha)) throw authFailed();
    if (!constantTimeEqual(await webMac(k, own.subarray(0, end)), own.subarray(end))) throw authFailed();
    const aes = await k.aes;
    let out;
    try {
      out = new Uint8Array(await subtle.decrypt({ name: 'AES-CBC', iv: k.iv }, aes, own.subarray(BLOCK, end)));
    } catch {
      // The only failure of an AES-CBC decryption of whole blocks under a valid key.
      throw new WacoreError('ERR_BAD_PADDING', 'decryption failed');
    }
    if (sha && !constantTimeEqual(await bytesOf(subtle.digest('SHA-256', out)), sha)) {
      out.fill(0);
      throw authFailed();
    }
    return out;
  };
  return {
    encrypt: webEncrypt,
    async decrypt(keys, e, encSha, sha) {
      checkLength(e.length);
      return webDecrypt(keys, e, encSha, sha);
    },
  };
}
