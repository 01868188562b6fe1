// WhatsApp media: per-type keys, encryption to upload bytes with both file hashes, decryption that
// authenticates before releasing plaintext, streaming forms (and Web Streams wrappers), range
// decryption, the streaming sidecar, and the media-retry helpers. Baileys' names where it has them.
// The whole-file calls run on one of three backends of one format (lib/media/: wasm, node:crypto,
// Web Crypto), chosen per call below.
import { asBytes, describe, optionsOf, textOf } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { FINISH, makeStreamBase, PUSH } from './stream.mjs';
import { fromBase64 } from './internal/base64.mjs';
import { makeNative, nativeOf, WEB_FROM } from './internal/native.mjs';
import { copy, HASH, KEYS, parts } from './media/format.mjs';
import { makeNodeMedia } from './media/node.mjs';
import { makeWasmMedia } from './media/wasm.mjs';
import { makeWebMedia } from './media/web.mjs';
import { bindExports, MEDIA_KEY_BYTES, MEDIA_KEYS_REF_KEY_AT, StreamKind } from './generated/boundary.mjs';

const MEDIA_KEY = MEDIA_KEY_BYTES;
// A media stream's final step: its last bytes and the file's two hashes.
const finalOf = ([tail, fileSha256, fileEncSha256]) => ({ tail, fileSha256, fileEncSha256 });
const MEDIA_ENCRYPT = StreamKind.mediaEncrypt;
const MEDIA_DECRYPT = StreamKind.mediaDecrypt;

/** The HKDF info word of each media type ("WhatsApp <word> Keys"), as WhatsApp clients use them. */
export const MEDIA_HKDF_KEY_MAPPING = Object.freeze({
  audio: 'Audio',
  document: 'Document',
  gif: 'Video',
  image: 'Image',
  ppic: '',
  product: 'Image',
  ptt: 'Audio',
  sticker: 'Image',
  video: 'Video',
  'thumbnail-document': 'Document Thumbnail',
  'thumbnail-image': 'Image Thumbnail',
  'thumbnail-video': 'Video Thumbnail',
  'thumbnail-link': 'Link Thumbnail',
  'md-msg-hist': 'History',
  'md-app-state': 'App State',
  'product-catalog-image': '',
  'payment-bg-image': 'Payment Background',
  ptv: 'Video',
  'sticker-pack': 'Sticker Pack',
  'thumbnail-sticker-pack': 'Sticker Pack Thumbnail',
});

const utf8 = new TextEncoder();

export function makeMedia(core, crypto) {
  const { plain, fail } = core;
  const Stream = makeStreamBase(core);

  const infoOf = (mediaType) => {
    // Own keys only: 'toString', 'constructor' or '__proto__' are no media types.
    const word = typeof mediaType === 'string' && Object.hasOwn(MEDIA_HKDF_KEY_MAPPING, mediaType) ? MEDIA_HKDF_KEY_MAPPING[mediaType] : undefined;
    if (typeof word !== 'string') throw new WacoreError('ERR_TYPE', `unknown media type ${describe(mediaType)}`);
    return utf8.encode(`WhatsApp ${word} Keys`);
  };
  const mediaKeyOf = (k) => {
    const b = typeof k === 'string' ? fromBase64(k.replace('data:;base64,', ''), 'mediaKey') : asBytes(k, 'mediaKey');
    if (b.length !== MEDIA_KEY) throw new WacoreError('ERR_KEY_LENGTH', 'a media key is 32 bytes');
    return b;
  };
  // The derived bytes (MEDIA_KEYS_BYTES: iv, cipher key, MAC key, ref key), in a JS array the caller wipes.
  const derive = (mediaKey, mediaType) => {
    const key = mediaKeyOf(mediaKey);
    const info = infoOf(mediaType);
    return plain.mediaKeys(key, info);
  };

  /** Baileys' getMediaKeys: { iv, cipherKey, macKey, refKey } for a 32-byte media key (or base64). */
  function getMediaKeys(mediaKey, mediaType) {
    const k = derive(mediaKey, mediaType);
    const [iv, cipherKey, macKey] = parts(k);
    return { iv: iv.slice(), cipherKey: cipherKey.slice(), macKey: macKey.slice(), refKey: k.slice(MEDIA_KEYS_REF_KEY_AT, KEYS) };
  }

  // The backends of the whole-file calls (lib/media/): wasm; node:crypto where it is there, for files
  // of 1 KiB or more unless { native: false } ({ native: true }: any size); Web Crypto for the
  // asynchronous calls where there is no node:crypto, from WEB_FROM's sizes (lib/internal/native.mjs
  // decides both). Each takes the derived keys, which the caller wipes, and gives the same bytes and
  // errors (the tests compare).
  const route = makeNative(core);
  const wasm = makeWasmMedia(core);
  let node; // made at the first call that takes it, for its node:crypto
  const backend = (native, n) => {
    const nc = route(native, n);
    if (!nc) return wasm;
    node ??= makeNodeMedia(nc, plain.mediaEncryptedSize);
    return node;
  };
  const backendAsync = (native, n, from) => {
    const subtle = route.web(native, n, from);
    return subtle ? makeWebMedia(subtle, crypto.constantTimeEqual) : backend(native, n);
  };

  // The arguments of encryptMedia, read once and in this order: { native, d, mediaKey, keys } (the
  // derived keys, which the caller wipes).
  const encryptArgs = (data, mediaType, options) => {
    options = optionsOf(options);
    const native = nativeOf(options); // before the data is taken
    const d = asBytes(data, 'data');
    // A copy of its own now: the asynchronous call returns it after its awaits.
    const mediaKey = options.mediaKey === undefined ? globalThis.crypto.getRandomValues(new Uint8Array(MEDIA_KEY)) : copy(mediaKeyOf(options.mediaKey));
    return { native, d, mediaKey, keys: derive(mediaKey, mediaType) };
  };
  const encryptNow = ({ native, d, mediaKey, keys }) => backend(native, d.length).encrypt(keys, d, mediaKey);

  /** Encrypts a whole file: { mediaKey, encrypted (upload bytes), fileSha256, fileEncSha256, fileLength }.
   * A fresh random media key is made unless options.mediaKey is given. options.native: see above. */
  function encryptMedia(data, mediaType, options) {
    const a = encryptArgs(data, mediaType, options);
    try {
      return encryptNow(a);
    } finally {
      a.keys.fill(0);
    }
  }

  /** encryptMedia, resolving to the same result; where there is no node:crypto, files of
   * WEB_FROM.encrypt bytes or more (any size with { native: true }) run on Web Crypto. The data is
   * read when the call is made. */
  async function encryptMediaAsync(data, mediaType, options) {
    const a = encryptArgs(data, mediaType, options);
    try {
      return await backendAsync(a.native, a.d.length, WEB_FROM.encrypt).encrypt(a.keys, a.d, a.mediaKey);
    } finally {
      a.keys.fill(0);
    }
  }

  // The arguments of decryptMedia, read once and in this order: { native, e, encSha, sha, keys }.
  const decryptArgs = (encrypted, mediaKey, mediaType, options) => {
    options = optionsOf(options);
    const native = nativeOf(options); // before the data is taken
    const e = asBytes(encrypted, 'encrypted');
    const hash = (name) => (options[name] === undefined ? undefined : copy(asBytes(options[name], name)));
    const encSha = hash('fileEncSha256');
    const sha = hash('fileSha256');
    for (const h of [encSha, sha]) if (h && h.length !== HASH) throw new WacoreError('ERR_DATA_LENGTH', 'file hashes are 32 bytes');
    return { native, e, encSha, sha, keys: derive(mediaKey, mediaType) };
  };
  const decryptNow = ({ native, e, encSha, sha, keys }) => backend(native, e.length).decrypt(keys, e, encSha, sha);

  /** Decrypts a whole file. The MAC, and options.fileEncSha256 when given, are checked before
   * anything is decrypted; options.fileSha256 when given, after. ERR_AUTH_TAG on any mismatch,
   * ERR_DATA_LENGTH for a truncated file, ERR_BAD_PADDING. */
  function decryptMedia(encrypted, mediaKey, mediaType, options) {
    const a = decryptArgs(encrypted, mediaKey, mediaType, options);
    try {
      return decryptNow(a);
    } finally {
      a.keys.fill(0);
    }
  }

  /** decryptMedia, resolving to the same plaintext or rejecting with the same error; Web Crypto
   * where there is no node:crypto for uploads of WEB_FROM.decrypt bytes or more (or { native: true }).
   * The file is read when the call is made. */
  async function decryptMediaAsync(encrypted, mediaKey, mediaType, options) {
    const a = decryptArgs(encrypted, mediaKey, mediaType, options);
    try {
      return await backendAsync(a.native, a.e.length, WEB_FROM.decrypt).decrypt(a.keys, a.e, a.encSha, a.sha);
    } finally {
      a.keys.fill(0);
    }
  }

  /** Decrypts whole blocks from the middle of a file, for range requests: previousBlock is the 16
   * bytes of ciphertext before them (the file's iv, from getMediaKeys, for the first block). No MAC
   * is checked and padding is not removed. */
  function decryptMediaRange(encryptedBlocks, mediaKey, mediaType, previousBlock) {
    const c = asBytes(encryptedBlocks, 'encryptedBlocks');
    const prev = asBytes(previousBlock, 'previousBlock');
    if (prev.length !== 16) throw new WacoreError('ERR_IV_LENGTH', 'previousBlock must be 16 bytes');
    const keys = derive(mediaKey, mediaType);
    try {
      return plain.mediaDecryptRange(keys, prev, c, c.length);
    } finally {
      keys.fill(0);
    }
  }

  /** The streaming sidecar of an audio/video upload: one 10-byte MAC per 64 KiB of iv || upload
   * (layout marked UNCONFIRMED in the protocol notes). */
  function mediaSidecar(encrypted, mediaKey, mediaType) {
    const e = asBytes(encrypted, 'encrypted');
    const keys = derive(mediaKey, mediaType);
    try {
      return plain.mediaSidecar(keys, e, plain.mediaSidecarSize(e.length));
    } finally {
      keys.fill(0);
    }
  }

  class MediaStream extends Stream {
    constructor(kind, mediaKey, mediaType) {
      const keys = derive(mediaKey, mediaType);
      try {
        super(kind, keys, undefined);
      } finally {
        keys.fill(0);
      }
    }
    update(data) {
      return this[PUSH](data);
    }
  }

  /** Incremental encryption: update(chunk) returns upload bytes; final() returns
   * { tail (the last bytes, MAC included), fileSha256, fileEncSha256 }. */
  class MediaEncryptor extends MediaStream {
    constructor(mediaKey, mediaType) {
      super(MEDIA_ENCRYPT, mediaKey, mediaType);
    }
    final() {
      return finalOf(this[FINISH]());
    }
  }

  /** Incremental decryption, for callers who must hand out plaintext before the file ends: what
   * update() returns is NOT authenticated until final() returns (ERR_AUTH_TAG, ERR_DATA_LENGTH,
   * ERR_BAD_PADDING). final() gives { tail, fileSha256, fileEncSha256 } to compare with the message's. */
  class MediaDecryptor extends MediaStream {
    constructor(mediaKey, mediaType) {
      super(MEDIA_DECRYPT, mediaKey, mediaType);
    }
    final() {
      return finalOf(this[FINISH]());
    }
  }

  function createMediaEncryptor(mediaType, options) {
    options = optionsOf(options);
    const mediaKey = options.mediaKey === undefined ? globalThis.crypto.getRandomValues(new Uint8Array(MEDIA_KEY)) : mediaKeyOf(options.mediaKey);
    const s = new MediaEncryptor(mediaKey, mediaType);
    s.mediaKey = copy(mediaKey);
    return s;
  }
  function createMediaDecryptor(mediaKey, mediaType, options) {
    options = optionsOf(options);
    if (options.unverified !== true) {
      throw new WacoreError('ERR_TYPE', 'streaming decryption hands out unauthenticated plaintext: pass { unverified: true }, or use decryptMedia');
    }
    return new MediaDecryptor(mediaKey, mediaType);
  }

  /** Web Streams: a TransformStream from plaintext chunks to upload bytes. `done` resolves to the
   * file hashes and the media key once the stream has flushed. */
  function createMediaEncryptStream(mediaType, options) {
    options = optionsOf(options);
    const enc = createMediaEncryptor(mediaType, options);
    let resolve;
    let reject;
    const done = new Promise((res, rej) => ((resolve = res), (reject = rej)));
    // Any failure (a bad chunk, a failing final, a cancel) errors the stream, frees the encryptor
    // and rejects `done`: it never stays pending.
    const failed = (e) => {
      enc.destroy();
      reject(e);
      throw e;
    };
    const stream = new TransformStream({
      transform(chunk, controller) {
        let out;
        try {
          out = enc.update(chunk);
        } catch (e) {
          failed(e);
        }
        if (out.length) controller.enqueue(out);
      },
      flush(controller) {
        let r;
        try {
          r = enc.final();
        } catch (e) {
          failed(e);
        }
        controller.enqueue(r.tail);
        resolve({ mediaKey: enc.mediaKey, fileSha256: r.fileSha256, fileEncSha256: r.fileEncSha256 });
      },
      cancel(reason) {
        enc.destroy();
        reject(reason);
      },
    });
    done.catch(() => {}); // a caller that only reads the stream must not see an unhandled rejection
    return { stream, done };
  }

  /** Web Streams: upload bytes to plaintext. Plaintext chunks flow before the MAC is checked (as
   * with createMediaDecryptor, so { unverified: true } is required); the stream errors at the end if
   * the MAC, or the expected hashes given in options, do not match. */
  function createMediaDecryptStream(mediaKey, mediaType, options) {
    options = optionsOf(options);
    const dec = createMediaDecryptor(mediaKey, mediaType, options);
    const expect = (got, want, what) => {
      if (want !== undefined && !crypto.constantTimeEqual(got, want)) throw new WacoreError('ERR_AUTH_TAG', `${what} does not match`);
    };
    return new TransformStream({
      transform(chunk, controller) {
        let out;
        try {
          out = dec.update(chunk);
        } catch (e) {
          dec.destroy(); // the stream is errored: free the decryptor now, not at garbage collection
          throw e;
        }
        if (out.length) controller.enqueue(out);
      },
      flush(controller) {
        const r = dec.final();
        expect(r.fileEncSha256, options.fileEncSha256, 'fileEncSha256');
        expect(r.fileSha256, options.fileSha256, 'fileSha256');
        if (r.tail.length) controller.enqueue(r.tail);
      },
      cancel() {
        dec.destroy();
      },
    });
  }

  // Media retry (src/media/media.h: retry_seal, retry_open), through the generated marshaller.
  const x = bindExports(core, fail);
  const messageIdBytes = (messageId) => utf8.encode(textOf(messageId, 'messageId'));

  /** Media-retry payload: AES-256-GCM under HKDF(mediaKey, "WhatsApp Media Retry Notification"),
   * a fresh 12-byte IV, the message id as AAD. Returns { ciphertext, iv }. */
  function encryptMediaRetryData(mediaKey, messageId, data) {
    const key = mediaKeyOf(mediaKey);
    const plaintext = asBytes(data, 'data');
    const r = x.mediaRetrySeal({ mediaKey: key, messageId: messageIdBytes(messageId), plaintext });
    return { ciphertext: r.ciphertext, iv: r.iv };
  }

  /** The payload encryptMediaRetryData sealed; ERR_AUTH_TAG if the key, message id, IV or bytes differ. */
  function decryptMediaRetryData(mediaKey, messageId, ciphertext, iv) {
    const key = mediaKeyOf(mediaKey);
    const ivBytes = asBytes(iv, 'iv');
    const sealed = asBytes(ciphertext, 'ciphertext');
    return x.mediaRetryOpen({ mediaKey: key, messageId: messageIdBytes(messageId), iv: ivBytes, ciphertext: sealed }).bytes;
  }

  return {
    MEDIA_HKDF_KEY_MAPPING,
    getMediaKeys,
    encryptMedia,
    decryptMedia,
    encryptMediaAsync,
    decryptMediaAsync,
    decryptMediaRange,
    mediaSidecar,
    createMediaEncryptor,
    createMediaDecryptor,
    createMediaEncryptStream,
    createMediaDecryptStream,
    encryptMediaRetryData,
    decryptMediaRetryData,
  };
}
