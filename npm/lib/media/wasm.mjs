// Whole-file media in wasm (src/media/media.h through the plain exports): the backend everywhere,
// and the only one for synchronous calls where there is no node:crypto. Inputs are copied into the
// I/O buffer once; the region is wiped when the call returns or throws. Encryption is declared
// whole (the generated mediaEncrypt places and copies out); decryption is placed here, in place
// (the plaintext over the upload: one copy of a file that may be megabytes), its expected hashes
// optional.
import { copy, HASH, KEYS } from './format.mjs';

/** { encrypt(keys, d, mediaKey), decrypt(keys, e, encSha, sha) } over a loaded module's core. */
export function makeWasmMedia({ M, plain, scratch }) {
  return {
    encrypt(keys, d, mediaKey) {
      const [encrypted, fileSha256, fileEncSha256] = plain.mediaEncrypt(keys, d, plain.mediaEncryptedSize(d.length));
      return { mediaKey: copy(mediaKey), encrypted, fileSha256, fileEncSha256, fileLength: d.length };
    },
    decrypt(keys, e, encSha, sha) {
      const total = KEYS + 2 * HASH + e.length;
      return scratch(total, (p) => {
        const heap = M.HEAPU8;
        heap.set(keys, p);
        if (encSha) heap.set(encSha, p + KEYS);
        if (sha) heap.set(sha, p + KEYS + HASH);
        const at = p + KEYS + 2 * HASH;
        heap.set(e, at);
        const n = plain.mediaDecrypt(p, at, e.length, encSha ? p + KEYS : 0, sha ? p + KEYS + HASH : 0, at);
        return M.HEAPU8.slice(at, at + n);
      });
    },
  };
}
