// The whole-file media format that every backend (media/wasm.mjs, media/node.mjs, media/web.mjs)
// writes and reads: AES-256-CBC of the file under the derived cipher key and iv, then the first
// MEDIA_MAC_BYTES of HMAC-SHA256(MAC key, iv || ciphertext); and the derived key block's layout.
import {
  AES_BLOCK_BYTES,
  MEDIA_KEYS_BYTES,
  MEDIA_KEYS_CIPHER_KEY_AT,
  MEDIA_KEYS_MAC_KEY_AT,
  MEDIA_KEYS_REF_KEY_AT,
  MEDIA_MAC_BYTES,
  SHA256_BYTES,
} from '../generated/boundary.mjs';
import { WacoreError } from '../errors.mjs';

export const MAC = MEDIA_MAC_BYTES;
export const BLOCK = AES_BLOCK_BYTES;
export const HASH = SHA256_BYTES;
export const KEYS = MEDIA_KEYS_BYTES;

/** A copy of its own: slice() of a Buffer (Buffer.prototype.slice) would be a view of the caller's bytes. */
export const copy = (bytes) => new Uint8Array(bytes);

/** Views of the iv, cipher key and MAC key in a derived key block (the declaration's offsets). */
export const parts = (k) => [k.subarray(0, MEDIA_KEYS_CIPHER_KEY_AT), k.subarray(MEDIA_KEYS_CIPHER_KEY_AT, MEDIA_KEYS_MAC_KEY_AT), k.subarray(MEDIA_KEYS_MAC_KEY_AT, MEDIA_KEYS_REF_KEY_AT)];

/** The length check a backend that is not the core's makes first, with the core's error. */
export const checkLength = (n) => {
  if (n < BLOCK + MAC || (n - MAC) % BLOCK !== 0) throw new WacoreError('ERR_DATA_LENGTH', 'input length is not valid for this operation');
};

export const authFailed = () => new WacoreError('ERR_AUTH_TAG', 'authentication failed');
