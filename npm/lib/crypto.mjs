// Symmetric primitives: AES-256 (CBC with PKCS#7, CTR, GCM), SHA-256/512, HMAC, HKDF, constant-time
// comparison; one-shot functions and streaming objects.
import { asBytes, asOptionalBytes, optionsOf } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { makeNative, nativeCbc, nativeOf, own } from './internal/native.mjs';

const utf8Encoder = new TextEncoder();
import { FINISH, HANDLE, makeStreamBase, PUSH } from './stream.mjs';
import { AES_IV_BYTES, AES_KEY_BYTES, GCM_TAG_BYTES, HashKind, HKDF_MAX_BYTES, MD5_BYTES, SHA256_BYTES, SHA512_BYTES, StreamKind } from './generated/boundary.mjs';

const KEY = AES_KEY_BYTES;
const IV = AES_IV_BYTES;
const TAG = GCM_TAG_BYTES;
const HKDF_MAX = HKDF_MAX_BYTES;

const HASH_KINDS = { sha256: StreamKind.sha256, sha512: StreamKind.sha512 };
const HMAC_KINDS = { sha256: StreamKind.hmacSha256, sha512: StreamKind.hmacSha512 };

export function makeCrypto(core) {
  const { plain, failCode } = core;

  // node:crypto for large one-shot inputs (lib/internal/native.mjs): same bytes, same errors.
  const nodeFor = makeNative(core);
  const NODE_HASH = { [HashKind.sha256]: 'sha256', [HashKind.sha512]: 'sha512' };

  // --- hashes ------------------------------------------------------------------------------------

  function digest(kind, size, data, options) {
    const native = kind in NODE_HASH ? nativeOf(options) : false; // read before the data is taken
    const d = asBytes(data, 'data');
    const nc = nodeFor(native, d.length);
    if (nc) return own(nc.createHash(NODE_HASH[kind]).update(d).digest());
    return plain.sha(kind, d, size);
  }

  function mac(kind, size, key, data, options) {
    const native = nativeOf(options); // read before the inputs are taken
    const k = asBytes(key, 'key');
    const d = asBytes(data, 'data');
    const nc = nodeFor(native, d.length, k.length + d.length);
    if (nc) return own(nc.createHmac(NODE_HASH[kind], k).update(d).digest());
    return plain.hmac(kind, k, d, size);
  }

  /** SHA-256 digest (32 bytes). */
  const sha256 = (data, options) => digest(HashKind.sha256, SHA256_BYTES, data, options);
  /** SHA-512 digest (64 bytes). */
  const sha512 = (data, options) => digest(HashKind.sha512, SHA512_BYTES, data, options);
  /** MD5 digest (16 bytes): a checksum, never for keys or MACs (whatsapp-rust-bridge's md5). */
  const md5 = (data) => digest(HashKind.md5, MD5_BYTES, data);
  /** HMAC-SHA256 (32 bytes); keys of any length. */
  const hmacSha256 = (key, data, options) => mac(HashKind.sha256, SHA256_BYTES, key, data, options);
  /** HMAC-SHA512 (64 bytes); keys of any length. */
  const hmacSha512 = (key, data, options) => mac(HashKind.sha512, SHA512_BYTES, key, data, options);

  // salt and info as bytes, or as text (UTF-8), as whatsapp-rust-bridge and Baileys 7 pass info.
  const bytesOrText = (x, name) => (typeof x === 'string' ? utf8Encoder.encode(x) : asOptionalBytes(x, name));

  /** HKDF-SHA256 (RFC 5869): `length` bytes (0..8160) from ikm, with optional salt and info (bytes,
   * or strings taken as UTF-8). */
  function hkdf(ikm, length, options) {
    options = optionsOf(options);
    const k = asBytes(ikm, 'ikm');
    const salt = bytesOrText(options.salt, 'salt');
    const info = bytesOrText(options.info, 'info');
    if (!Number.isInteger(length) || length < 0 || length > HKDF_MAX) {
      throw new WacoreError('ERR_OUTPUT_LENGTH', `length must be an integer in 0..${HKDF_MAX}`);
    }
    return plain.hkdf(k, salt, info, length);
  }

  /** Whether a and b hold the same bytes, in time that depends only on the length. Different
   * lengths compare unequal at once (lengths are not secret). */
  function constantTimeEqual(a, b) {
    const u = asBytes(a, 'a');
    const v = asBytes(b, 'b');
    if (u.length !== v.length) return false;
    return plain.ctEqual(u, v);
  }

  // --- AES one-shot: on node:crypto where it pays (nodeFor), else the plain exports (declared whole:
  // the generated JS places key, IV, AAD and the data, which the call processes in place) ----------

  function aesCall(name, keyBytes, ivBytes, data, extra, wasm, native, nodeForm) {
    const key = asBytes(keyBytes, 'key');
    const iv = asBytes(ivBytes, 'iv');
    const d = asBytes(data, 'data');
    // OpenSSL takes GCM IVs of at most 128 bytes; longer ones (valid in GCM) stay in wasm.
    const nc = name === 'gcm' && iv.length > 128 ? undefined : nodeFor(native, d.length, key.length + iv.length + extra.length + d.length);
    if (nc) return nodeForm(nc, key, iv, d, extra);
    return wasm(key, iv, d, extra);
  }

  // The node:crypto forms check what the wasm glue checks, in its order, with its errors.
  const keyOk = (key) => {
    if (key.length !== KEY) failCode('ERR_KEY_LENGTH');
  };
  const iv16 = (iv) => {
    if (iv.length !== IV) failCode('ERR_IV_LENGTH');
  };
  const nodeCbc = (encrypt) => (nc, key, iv, d) => {
    keyOk(key);
    iv16(iv);
    if (!encrypt && (d.length === 0 || d.length % 16 !== 0)) failCode('ERR_DATA_LENGTH');
    return nativeCbc(nc, encrypt, key, iv, d);
  };
  const nodeCtr = (nc, key, iv, d) => {
    keyOk(key);
    iv16(iv);
    const c = nc.createCipheriv('aes-256-ctr', key, iv);
    return own(c.update(d), c.final());
  };
  const nodeGcmSeal = (nc, key, iv, d, aad) => {
    keyOk(key);
    if (iv.length === 0) failCode('ERR_IV_LENGTH');
    const c = nc.createCipheriv('aes-256-gcm', key, iv);
    if (aad.length) c.setAAD(aad);
    return own(c.update(d), c.final(), c.getAuthTag());
  };
  const nodeGcmOpen = (nc, key, iv, d, aad) => {
    keyOk(key);
    if (d.length < TAG) failCode('ERR_DATA_LENGTH');
    if (iv.length === 0) failCode('ERR_IV_LENGTH');
    const c = nc.createDecipheriv('aes-256-gcm', key, iv);
    if (aad.length) c.setAAD(aad);
    c.setAuthTag(d.subarray(d.length - TAG));
    // The plaintext is released only once final() has checked the tag.
    const opened = c.update(d.subarray(0, d.length - TAG));
    try {
      return own(opened, c.final());
    } catch {
      opened.fill(0);
      failCode('ERR_AUTH_TAG');
    }
  };

  // A one-shot AES call: the plain export (which raises its errors) on the data in a room its output
  // fits, and the node:crypto form.
  const oneShot = (name, withAad, wasm, nodeForm) => (key, iv, data, ...rest) => {
    const native = nativeOf(withAad ? rest[1] : rest[0]); // read before the inputs are taken
    const aad = withAad ? asOptionalBytes(rest[0], 'aad') : new Uint8Array(0);
    return aesCall(name, key, iv, data, aad, wasm, native, nodeForm);
  };

  /** AES-256-CBC with PKCS#7 padding: 16-byte-multiple ciphertext, 1..16 bytes longer than data. */
  const aesCbcEncrypt = oneShot('cbc', false, (k, i, d) => plain.aesCbcEncrypt(k, i, d, d.length + 16), nodeCbc(true));
  /** AES-256-CBC decryption; throws ERR_BAD_PADDING (checked in constant time in wasm; node:crypto's
   * check, from 1 KiB where it is there, is OpenSSL's) or ERR_DATA_LENGTH. */
  const aesCbcDecrypt = oneShot('cbc', false, (k, i, d) => plain.aesCbcDecrypt(k, i, d, d.length), nodeCbc(false));
  /** AES-256-CTR with a 16-byte initial counter block, incremented as one 128-bit big-endian number
   * (as node:crypto's aes-256-ctr). Encryption and decryption are the same operation. */
  const aesCtr = oneShot('ctr', false, (k, i, d) => plain.aesCtr(k, i, d, d.length), nodeCtr);
  /** AES-256-GCM: ciphertext followed by the 16-byte tag. iv: any non-empty length (12 recommended). */
  const aesGcmSeal = oneShot('gcm', true, (k, i, d, a) => plain.aesGcmSeal(k, i, a, d, d.length + TAG), nodeGcmSeal);
  /** AES-256-GCM decryption of ciphertext||tag; the tag is verified (in constant time) before any
   * plaintext exists. Throws ERR_AUTH_TAG. */
  const aesGcmOpen = oneShot('gcm', true, (k, i, d, a) => plain.aesGcmOpen(k, i, a, d, d.length), nodeGcmOpen);

  // --- streams (lib/stream.mjs) -------------------------------------------------------------------
  const Stream = makeStreamBase(core);

  /** Incremental AES-256-CBC encryption: update(data) returns the complete blocks so far; final()
   * the padded last block. */
  class AesCbcEncryptor extends Stream {
    constructor(key, iv) {
      super(StreamKind.cbcEncrypt, key, iv);
    }
    update(data) {
      return this[PUSH](data);
    }
    final() {
      return this[FINISH]();
    }
  }

  /** Incremental AES-256-CBC decryption: update(data) returns plaintext, always holding back the last
   * block; final() checks the padding and returns the rest (ERR_BAD_PADDING, ERR_DATA_LENGTH). */
  class AesCbcDecryptor extends Stream {
    constructor(key, iv) {
      super(StreamKind.cbcDecrypt, key, iv);
    }
    update(data) {
      return this[PUSH](data);
    }
    final() {
      return this[FINISH]();
    }
  }

  /** Incremental AES-256-CTR: update(data) returns as many bytes as it is given, whatever the split. */
  class AesCtr extends Stream {
    constructor(key, iv) {
      super(StreamKind.ctr, key, iv);
    }
    update(data) {
      return this[PUSH](data);
    }
    /** Frees the state; returns an empty array (CTR has no trailing output). */
    final() {
      return this[FINISH]();
    }
  }

  class AesGcm extends Stream {
    constructor(kind, key, iv, aad) {
      super(kind, key, iv);
      if (aad !== undefined && aad !== null) {
        try {
          this.setAAD(aad);
        } catch (e) {
          this.destroy(); // the caller never gets the object: free its state now, not at GC
          throw e;
        }
      }
    }
    /** Adds additional authenticated data; only before the first update(). */
    setAAD(aad) {
      const h = this[HANDLE]();
      const a = asBytes(aad, 'aad');
      plain.streamAad(h, a);
      return this;
    }
    update(data) {
      return this[PUSH](data);
    }
  }

  /** Incremental AES-256-GCM encryption; final() returns the 16-byte tag. */
  class AesGcmEncryptor extends AesGcm {
    constructor(key, iv, aad) {
      super(StreamKind.gcmEncrypt, key, iv, aad);
    }
    final() {
      return this[FINISH]();
    }
  }

  /** Incremental AES-256-GCM decryption. update() returns plaintext that is NOT yet authenticated:
   * do not act on it before final(tag) returns; final throws ERR_AUTH_TAG on a forgery. For whole
   * messages in memory use aesGcmOpen, which releases nothing before the tag checks. */
  class AesGcmDecryptor extends AesGcm {
    constructor(key, iv, aad) {
      super(StreamKind.gcmDecrypt, key, iv, aad);
    }
    final(tag) {
      const t = asBytes(tag, 'tag');
      if (t.length !== TAG) {
        this[HANDLE](); // (ERR_STREAM_STATE once finished, as any final)
        this.destroy(); // as the core does with a tag of another length: a failed final ends the stream
        failCode('ERR_AUTH_TAG');
      }
      this[FINISH](t);
    }
  }

  /** Incremental SHA-2 or HMAC: update(data) returns this; digest() the result, and frees the state. */
  class Hash extends Stream {
    update(data) {
      this[PUSH](data);
      return this;
    }
    digest() {
      return this[FINISH]();
    }
  }

  const pick = (table, algorithm) => {
    const kind = typeof algorithm === 'string' && Object.hasOwn(table, algorithm) ? table[algorithm] : undefined;
    if (kind === undefined) throw new WacoreError('ERR_TYPE', `algorithm must be 'sha256' or 'sha512'`);
    return kind;
  };

  return {
    sha256,
    sha512,
    md5,
    hmacSha256,
    hmacSha512,
    hkdf,
    constantTimeEqual,
    aesCbcEncrypt,
    aesCbcDecrypt,
    aesCtr,
    aesGcmSeal,
    aesGcmOpen,
    createAesCbcEncryptor: (key, iv) => new AesCbcEncryptor(key, iv),
    createAesCbcDecryptor: (key, iv) => new AesCbcDecryptor(key, iv),
    createAesCtr: (key, iv) => new AesCtr(key, iv),
    createAesGcmEncryptor: (key, iv, aad) => new AesGcmEncryptor(key, iv, aad),
    createAesGcmDecryptor: (key, iv, aad) => new AesGcmDecryptor(key, iv, aad),
    createHash: (algorithm) => new Hash(pick(HASH_KINDS, algorithm), undefined),
    createHmac: (algorithm, key) => new Hash(pick(HMAC_KINDS, algorithm), asBytes(key, 'key')),
  };
}
