// Whole-file media in wasm (src/media/media.h through the plain exports): the backend everywhere,
// and the only one for synchronous calls where there is no node:crypto. Inputs are copied into the
// I/O buffer once (both calls declared whole: the generated code places and copies out); the region
// is wiped when the call returns or throws. Decryption works in place (the plaintext over the
// upload: one copy of a file that may be megabytes); an expected hash left out is not checked.
import { copy } from './format.mjs';

const NONE = new Uint8Array(0);

/** { encrypt(keys, d, mediaKey), decrypt(keys, e, encSha, sha) } over a loaded module's core. */
export function makeWasmMedia({ plain }) {
  return {
    encrypt(keys, d, mediaKey) {
      const [encrypted, fileSha256, fileEncSha256] = plain.mediaEncrypt(keys, d, plain.mediaEncryptedSize(d.length));
      return { mediaKey: copy(mediaKey), encrypted, fileSha256, fileEncSha256, fileLength: d.length };
    },
    decrypt(keys, e, encSha, sha) {
      return plain.mediaDecrypt(keys, encSha ?? NONE, sha ?? NONE, e, e.length);
    },
  };
}
