// Whole-file media on node:crypto (AES-NI): where node:crypto is there, files of 1 KiB or more take
// this backend unless { native: false } (lib/internal/native.mjs decides). The same protocol steps,
// bytes and errors as the core's (the tests compare); the keys are derived in wasm.
import { nativeCbc } from '../internal/native.mjs';
import { authFailed, checkLength, copy, MAC, parts } from './format.mjs';

/** { encrypt(keys, d, mediaKey), decrypt(keys, e, encSha, sha) } on node:crypto `nc`;
 * encryptedSize(n) is the core's upload length for n bytes. */
export function makeNodeMedia(nc, encryptedSize) {
  return {
    encrypt(keys, d, mediaKey) {
      const [iv, cipher, mac] = parts(keys);
      const c = nc.createCipheriv('aes-256-cbc', cipher, iv);
      // Ciphertext and MAC written straight into the result.
      const encrypted = new Uint8Array(encryptedSize(d.length));
      let n = 0;
      for (const part of [c.update(d), c.final()]) {
        encrypted.set(part, n);
        n += part.length;
        part.fill(0);
      }
      const ct = encrypted.subarray(0, n);
      encrypted.set(nc.createHmac('sha256', mac).update(iv).update(ct).digest().subarray(0, MAC), n);
      return {
        mediaKey: copy(mediaKey),
        encrypted,
        fileSha256: new Uint8Array(nc.createHash('sha256').update(d).digest()),
        fileEncSha256: new Uint8Array(nc.createHash('sha256').update(encrypted).digest()),
        fileLength: d.length,
      };
    },
    decrypt(keys, e, encSha, sha) {
      checkLength(e.length);
      const [iv, cipher, mac] = parts(keys);
      const ct = e.subarray(0, e.length - MAC);
      if (encSha && !nc.timingSafeEqual(nc.createHash('sha256').update(e).digest(), encSha)) throw authFailed();
      const tag = nc.createHmac('sha256', mac).update(iv).update(ct).digest().subarray(0, MAC);
      if (!nc.timingSafeEqual(tag, e.subarray(e.length - MAC))) throw authFailed();
      // The plaintext in one buffer of exactly its length, copied once; node:crypto's wiped.
      const out = nativeCbc(nc, false, cipher, iv, ct);
      if (sha && !nc.timingSafeEqual(nc.createHash('sha256').update(out).digest(), sha)) {
        out.fill(0);
        throw authFailed();
      }
      return out;
    },
  };
}
