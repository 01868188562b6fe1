// Glue for hashing, HMAC, HKDF, one-shot AES and the incremental streams (AES, hashes, HMAC, media).
// Marshalling only: every function takes addresses in the module's one I/O buffer (the JS side copies
// inputs in, calls, and copies outputs out, bindings/module.cpp), plus lengths, and returns what its
// declared return kind says (an Error, a Value, ...); the export turns a failure into -Error, which
// the generated JS function raises as a WacoreError.
#include <emscripten.h>
#include <sodium.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>

#include "common/error.h"
#include "crypto/aes_modes.h"
#include "crypto/hash.h"
#include "generated/boundary.h"
#include "media/media.h"

// The plain exports' family functions (bindings/boundary.json, "plain"): the generated exports at the
// end of this file call them and turn what they return into the one convention.
namespace wacore::bindings::plain {

// --- hashes and KDF ------------------------------------------------------------------------------

using wire::HashKind;
using wire::StreamKind;

// kind: a HashKind (bindings/boundary.json); any other number is refused, never a default hash.
// The digest's room must be exactly the kind's digest size (ERR_OUTPUT_LENGTH otherwise).
Error sha(int32_t kind, uintptr_t data, size_t data_len, uintptr_t digest, size_t digest_len) {
  const auto in = bytes(data, data_len);
  if (kind == static_cast<int>(HashKind::kSha256)) {
    if (digest_len != wacore::hash::kSha256Bytes) return Error::output_length;
    wacore::hash::sha256(in, at(digest));
  } else if (kind == static_cast<int>(HashKind::kSha512)) {
    if (digest_len != wacore::hash::kSha512Bytes) return Error::output_length;
    wacore::hash::sha512(in, at(digest));
  } else if (kind == static_cast<int>(HashKind::kMd5)) {
    if (digest_len != wacore::hash::kMd5Bytes) return Error::output_length;
    wacore::hash::md5(in, at(digest));
  } else {
    return Error::type;
  }
  return Error::ok;
}

// kind: HashKind's SHA-256 or SHA-512; the MAC's room must be that hash's size.
Error hmac(int32_t kind, uintptr_t key, size_t key_len, uintptr_t data, size_t data_len, uintptr_t mac, size_t mac_len) {
  if (kind == static_cast<int>(HashKind::kSha256)) {
    if (mac_len != wacore::hash::kSha256Bytes) return Error::output_length;
    wacore::hash::hmac_sha256(bytes(key, key_len), bytes(data, data_len), at(mac));
  } else if (kind == static_cast<int>(HashKind::kSha512)) {
    if (mac_len != wacore::hash::kSha512Bytes) return Error::output_length;
    wacore::hash::hmac_sha512(bytes(key, key_len), bytes(data, data_len), at(mac));
  } else {
    return Error::type;
  }
  return Error::ok;
}

Error hkdf(uintptr_t ikm, size_t ikm_len, uintptr_t salt, size_t salt_len, uintptr_t info, size_t info_len, uintptr_t okm,
           size_t okm_len) {
  return wacore::hash::hkdf(bytes(ikm, ikm_len), bytes(salt, salt_len), bytes(info, info_len), {at(okm), okm_len});
}

// Different lengths are unequal at once: lengths are not secret.
bool ct_equal(uintptr_t a, size_t a_len, uintptr_t b, size_t b_len) {
  return a_len == b_len && wacore::hash::equal(at(a), at(b), a_len);
}

// --- AES one-shot, in place in the I/O buffer -----------------------------------------------------

namespace {
Error check_key_iv(size_t key_len, size_t iv_len, size_t want_iv) {
  if (key_len != wacore::aes::kKeyBytes) return Error::key_length;
  if (iv_len != want_iv) return Error::iv_length;
  return Error::ok;
}
}  // namespace

// buf holds len bytes of plaintext and room for 16 more; the ciphertext length.
// The one-shot calls work in place on buf: len bytes in a room of room bytes (declared whole,
// bindings/boundary.json: the key's and a CBC/CTR IV's lengths are checked by the export).
wire::Value aes_cbc_encrypt(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t buf, size_t len,
                            size_t room) {
  if (Error e = check_key_iv(key_len, iv_len, wacore::aes::kIvBytes); e != Error::ok) return e;
  if (room < wacore::aes::cbc_encrypted_size(len)) return Error::output_length;
  wacore::aes::cbc_encrypt(at(key), at(iv), at(buf), len, at(buf));
  return wire::Value::of(wacore::aes::cbc_encrypted_size(len));
}

// The plaintext length.
wire::Value aes_cbc_decrypt(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t buf, size_t len,
                            size_t room) {
  if (Error e = check_key_iv(key_len, iv_len, wacore::aes::kIvBytes); e != Error::ok) return e;
  if (room < len) return Error::output_length;
  size_t n = 0;
  if (Error e = wacore::aes::cbc_decrypt(at(key), at(iv), at(buf), len, at(buf), &n); e != Error::ok) return e;
  return wire::Value::of(n);
}

wire::Value aes_ctr(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t buf, size_t len, size_t room) {
  if (Error e = check_key_iv(key_len, iv_len, wacore::aes::kIvBytes); e != Error::ok) return e;
  if (room < len) return Error::output_length;
  wacore::aes::ctr(at(key), at(iv), at(buf), at(buf), len);
  return wire::Value::of(len);
}

// The room holds len bytes and the 16-byte tag after them.
wire::Value aes_gcm_seal(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t aad, size_t aad_len,
                         uintptr_t buf, size_t len, size_t room) {
  if (key_len != wacore::aes::kKeyBytes) return Error::key_length;
  if (room < len + wacore::aes::kGcmTagBytes) return Error::output_length;
  if (Error e = wacore::aes::gcm_seal(at(key), bytes(iv, iv_len), bytes(aad, aad_len), at(buf), len, at(buf));
      e != Error::ok)
    return e;
  return wire::Value::of(len + wacore::aes::kGcmTagBytes);
}

// buf holds ciphertext and tag (len bytes); the plaintext replaces it only if the tag is valid.
wire::Value aes_gcm_open(uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len, uintptr_t aad, size_t aad_len,
                         uintptr_t buf, size_t len, size_t room) {
  if (key_len != wacore::aes::kKeyBytes) return Error::key_length;
  if (room < len) return Error::output_length;
  if (Error e = wacore::aes::gcm_open(at(key), bytes(iv, iv_len), bytes(aad, aad_len), at(buf), len, at(buf));
      e != Error::ok)
    return e;
  return wire::Value::of(len - wacore::aes::kGcmTagBytes);
}

// --- streams: one malloc'd state per JS stream object, freed (and wiped) by final or free ------------

// The kinds are bindings/boundary.json's StreamKind.
using enum StreamKind;

namespace {
struct Stream {
  StreamKind kind;
  union {
    wacore::aes::CbcEncryptor cbc_enc;
    wacore::aes::CbcDecryptor cbc_dec;
    wacore::aes::Ctr ctr;
    wacore::aes::Gcm gcm;
    wacore::hash::Stream hash;
    wacore::media::Encryptor media_enc;
    wacore::media::Decryptor media_dec;
  };
};
}  // namespace

void stream_free(uintptr_t stream) {
  if (stream == 0) return;
  sodium_memzero(at<Stream>(stream), sizeof(Stream));
  std::free(at<Stream>(stream));
}

// The handle (> 0).
wire::Value stream_create(int32_t kind_number, uintptr_t key, size_t key_len, uintptr_t iv, size_t iv_len) {
  if (kind_number < wire::kStreamKindFirst || kind_number > wire::kStreamKindLast) return Error::type;
  const StreamKind kind = static_cast<StreamKind>(kind_number);
  const bool is_hash = kind == kSha256 || kind == kSha512 || kind == kHmacSha256 || kind == kHmacSha512;
  const bool is_media = kind == kMediaEncrypt || kind == kMediaDecrypt;
  if (is_media && key_len != sizeof(wacore::media::Keys)) return Error::key_length;
  if (!is_hash && !is_media) {
    const size_t want_iv = (kind == kGcmEncrypt || kind == kGcmDecrypt) ? iv_len : wacore::aes::kIvBytes;
    if (Error e = check_key_iv(key_len, iv_len, want_iv); e != Error::ok) return e;
  }
  auto* s = static_cast<Stream*>(std::malloc(sizeof(Stream)));
  if (s == nullptr) return Error::out_of_memory;
  s->kind = kind;
  Error e = Error::ok;
  switch (kind) {
    case kCbcEncrypt: s->cbc_enc.init(at(key), at(iv)); break;
    case kCbcDecrypt: s->cbc_dec.init(at(key), at(iv)); break;
    case kCtr: s->ctr.init(at(key), at(iv)); break;
    case kGcmEncrypt:
    case kGcmDecrypt: e = s->gcm.init(at(key), bytes(iv, iv_len), kind == kGcmEncrypt); break;
    case kSha256: s->hash.init(wacore::hash::Algorithm::sha256); break;
    case kSha512: s->hash.init(wacore::hash::Algorithm::sha512); break;
    case kHmacSha256: s->hash.init(wacore::hash::Algorithm::hmac_sha256, bytes(key, key_len)); break;
    case kHmacSha512: s->hash.init(wacore::hash::Algorithm::hmac_sha512, bytes(key, key_len)); break;
    case kMediaEncrypt: s->media_enc.init(*at<const wacore::media::Keys>(key)); break;
    case kMediaDecrypt: s->media_dec.init(*at<const wacore::media::Keys>(key)); break;
  }
  if (e != Error::ok) {
    stream_free(reinterpret_cast<uintptr_t>(s));
    return e;
  }
  return wire::Value::of(reinterpret_cast<uintptr_t>(s));
}

// Output bytes update(len) will produce.
size_t stream_update_size(uintptr_t stream, size_t len) {
  const Stream& s = *at<Stream>(stream);
  switch (s.kind) {
    case kCbcEncrypt: return s.cbc_enc.update_size(len);
    case kCbcDecrypt: return s.cbc_dec.update_size(len);
    case kCtr:
    case kGcmEncrypt:
    case kGcmDecrypt: return len;
    case kMediaEncrypt: return s.media_enc.update_size(len);
    case kMediaDecrypt: return s.media_dec.update_size(len);
    default: return 0;
  }
}

Error stream_aad(uintptr_t stream, uintptr_t data, size_t len) {
  Stream& s = *at<Stream>(stream);
  if (s.kind != kGcmEncrypt && s.kind != kGcmDecrypt) return Error::stream_state;
  return s.gcm.aad(bytes(data, len));
}

// Processes len bytes from data, writing stream_update_size(len) bytes to out (out may equal data
// for CTR and GCM, and for CBC when out does not run ahead of data): the bytes written.
wire::Value stream_update(uintptr_t stream, uintptr_t data, size_t len, uintptr_t out, size_t out_len) {
  if (out_len < stream_update_size(stream, len)) return Error::output_length;
  Stream& s = *at<Stream>(stream);
  switch (s.kind) {
    case kCbcEncrypt: return wire::Value::of(s.cbc_enc.update(at(data), len, at(out)));
    case kCbcDecrypt: return wire::Value::of(s.cbc_dec.update(at(data), len, at(out)));
    case kCtr: s.ctr.update(at(data), at(out), len); return wire::Value::of(len);
    case kGcmEncrypt:
    case kGcmDecrypt: {
      const Error e = s.gcm.update(at(data), at(out), len);
      if (e != Error::ok) return e;
      return wire::Value::of(len);
    }
    case kMediaEncrypt: return wire::Value::of(s.media_enc.update(at(data), len, at(out)));
    case kMediaDecrypt: return wire::Value::of(s.media_dec.update(at(data), len, at(out)));
    default: s.hash.update(bytes(data, len)); return wire::Value::of(0);
  }
}

namespace {
bool is_media(const Stream& s) { return s.kind == kMediaEncrypt || s.kind == kMediaDecrypt; }

size_t final_size(const Stream& s) {
  switch (s.kind) {
    case kCbcEncrypt:
    case kCbcDecrypt: return wacore::aes::kBlockBytes;
    case kCtr:
    case kGcmDecrypt: return 0;
    case kGcmEncrypt: return wacore::aes::kGcmTagBytes;
    case kMediaEncrypt:
    case kMediaDecrypt: return wire::kMediaFinalTailBytes;
    default: return s.hash.digest_size();
  }
}

wire::Value finish(Stream& s, uintptr_t out, uintptr_t tag, size_t tag_len) {
  switch (s.kind) {
    case kCbcEncrypt: s.cbc_enc.final(at(out)); return wire::Value::of(wacore::aes::kBlockBytes);
    case kCbcDecrypt: {
      size_t n = 0;
      if (Error e = s.cbc_dec.final(at(out), &n); e != Error::ok) return e;
      return wire::Value::of(n);
    }
    case kCtr: return wire::Value::of(0);
    case kGcmEncrypt: {
      if (Error e = s.gcm.final_tag(at(out)); e != Error::ok) return e;
      return wire::Value::of(wacore::aes::kGcmTagBytes);
    }
    case kGcmDecrypt: {
      const Error e = tag_len == wacore::aes::kGcmTagBytes ? s.gcm.final_verify(at(tag)) : Error::auth_tag;
      if (e != Error::ok) return e;
      return wire::Value::of(0);
    }
    default: {
      const size_t n = s.hash.digest_size();
      s.hash.final(at(out));
      return wire::Value::of(n);
    }
  }
}

wire::Value finish_media(Stream& s, uintptr_t tail, uintptr_t sha256, uintptr_t enc_sha256) {
  if (s.kind == kMediaEncrypt) {
    s.media_enc.final(at(tail), at(sha256), at(enc_sha256));
    return wire::Value::of(wacore::aes::kBlockBytes + wacore::media::kMacBytes);
  }
  size_t n = 0;
  if (Error e = s.media_dec.final(at(tail), &n, at(sha256), at(enc_sha256)); e != Error::ok) return e;
  return wire::Value::of(n);
}
}  // namespace

size_t stream_final_size(uintptr_t stream) { return final_size(*at<Stream>(stream)); }

// Finishes the stream and frees it, whatever the outcome. out receives the last bytes (CBC: up to
// 16; GCM encrypt: the tag; hashes: the digest); tag is the expected tag for GCM decryption. The
// bytes written.
wire::Value stream_final(uintptr_t stream, uintptr_t tag, size_t tag_len, uintptr_t out, size_t out_len) {
  Stream& s = *at<Stream>(stream);
  wire::Value result = Error::stream_state;
  if (!is_media(s)) result = out_len < final_size(s) ? wire::Value(Error::output_length) : finish(s, out, tag, tag_len);
  stream_free(stream);
  return result;
}

// The same for a media stream: tail receives the last bytes (encrypting: the last block and the
// MAC), then the file's two hashes. The bytes written to tail.
wire::Value stream_final_media(uintptr_t stream, uintptr_t tail, size_t tail_len, uintptr_t sha256,
                               uintptr_t enc_sha256) {
  Stream& s = *at<Stream>(stream);
  wire::Value result = Error::stream_state;
  if (is_media(s)) {
    result = tail_len < final_size(s) ? wire::Value(Error::output_length) : finish_media(s, tail, sha256, enc_sha256);
  }
  stream_free(stream);
  return result;
}

}  // namespace wacore::bindings::plain

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/crypto_bindings.inc"
