// Glue for media encryption (src/media/media.h): whole files, ranges, sidecars, and the media-retry
// receipt's AES-GCM (generated exports, bindings/boundary.json).
// Marshalling only: every function takes addresses in the module's one I/O buffer (the JS side copies
// inputs in, calls, and copies outputs out, bindings/module.cpp), plus lengths, and returns what its
// declared return kind says (an Error, a Value, ...); the export turns a failure into -Error, which
// the generated JS function raises as a WacoreError.
#include <emscripten.h>
#include <sodium.h>

#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"
#include "crypto/aes_modes.h"
#include "generated/boundary.h"
#include "media/media.h"

// The plain exports' family functions (bindings/boundary.json, "plain"): the generated exports at the
// end of this file call them and turn what they return into the one convention.
namespace wacore::bindings::plain {

// --- media ---------------------------------------------------------------------------------------------

namespace md = wacore::media;
namespace {
const md::Keys& media_keys_at(uintptr_t p) { return *at<const md::Keys>(p); }
constexpr size_t kHashBytes = 32;  // SHA-256
}  // namespace

// out: the 112 bytes of derived keys (iv, cipher key, MAC key, ref key).
// mediaKeys, mediaEncrypt, mediaDecryptRange and mediaSidecar are declared whole
// (bindings/boundary.json): their sized inputs' lengths are checked by the generated exports.
Error media_keys(uintptr_t media_key, size_t media_key_len, uintptr_t info, size_t info_len, uintptr_t keys) {
  return md::derive_keys(bytes(media_key, media_key_len), {at<const char>(info), info_len}, *at<md::Keys>(keys));
}

// upload: room for exactly encrypted_size(data_len) bytes; the hashes 32 bytes each.
Error media_encrypt(uintptr_t keys, size_t, uintptr_t data, size_t data_len, uintptr_t upload, size_t upload_len,
                    uintptr_t sha, uintptr_t enc_sha) {
  if (upload_len != md::encrypted_size(data_len)) return Error::output_length;
  md::encrypt(media_keys_at(keys), bytes(data, data_len), at(upload), at(sha), at(enc_sha));
  return Error::ok;
}

// In place: the plaintext over the upload, which may be megabytes (no second copy). An expected
// hash of no bytes is not checked; one of another length than 32 is ERR_DATA_LENGTH. The
// plaintext length.
wire::Value media_decrypt(uintptr_t keys, size_t, uintptr_t enc_sha, size_t enc_sha_len, uintptr_t sha, size_t sha_len,
                          uintptr_t upload, size_t len, size_t room) {
  if ((enc_sha_len != 0 && enc_sha_len != kHashBytes) || (sha_len != 0 && sha_len != kHashBytes)) return Error::data_length;
  if (room < len) return Error::output_length;
  size_t n = 0;
  const Error e = md::decrypt(media_keys_at(keys), bytes(upload, len), enc_sha_len ? at(enc_sha) : nullptr,
                              sha_len ? at(sha) : nullptr, at(upload), &n);
  if (e != Error::ok) return e;
  return wire::Value::of(n);
}

// plain: room for the data's length.
Error media_decrypt_range(uintptr_t keys, size_t, uintptr_t prev, size_t, uintptr_t data, size_t data_len,
                          uintptr_t plain, size_t plain_len) {
  if (plain_len != data_len) return Error::output_length;
  return md::decrypt_range(media_keys_at(keys), at(prev), bytes(data, data_len), at(plain));
}

// sidecar: room for exactly sidecar_size(upload_len) bytes.
Error media_sidecar(uintptr_t keys, size_t, uintptr_t upload, size_t upload_len, uintptr_t sidecar,
                    size_t sidecar_len) {
  if (sidecar_len != md::sidecar_size(upload_len)) return Error::output_length;
  md::sidecar(media_keys_at(keys), bytes(upload, upload_len), at(sidecar));
  return Error::ok;
}

size_t media_sidecar_size(size_t len) { return md::sidecar_size(len); }

size_t media_encrypted_size(size_t len) { return md::encrypted_size(len); }

}  // namespace wacore::bindings::plain

// The media-retry receipt (generated exports, bindings/boundary.json).
namespace wacore::bindings::impl {

int media_retry_seal(const wire::MediaRetrySealIn& in) {
  std::vector<uint8_t> sealed(in.plaintext.size() + wacore::aes::kGcmTagBytes);
  uint8_t iv[wacore::media::kRetryNonceBytes];
  const Error e = wacore::media::retry_seal(in.media_key, in.message_id, in.plaintext, iv, sealed.data());
  if (e != Error::ok) return rc(e);
  return emit(wire::MediaRetrySealOut{.iv = std::span<const uint8_t, sizeof iv>(iv), .ciphertext = sealed});
}

int media_retry_open(const wire::MediaRetryOpenIn& in) {
  if (in.ciphertext.size() < wacore::aes::kGcmTagBytes) return rc(Error::data_length);
  std::vector<uint8_t> plain(in.ciphertext.size() - wacore::aes::kGcmTagBytes);
  const Error e = wacore::media::retry_open(in.media_key, in.message_id, in.iv, in.ciphertext, plain.data());
  const int result = e != Error::ok ? rc(e) : emit(wire::SecretOut{.bytes = plain});
  sodium_memzero(plain.data(), plain.size());
  return result;
}

}  // namespace wacore::bindings::impl

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/media_bindings.inc"
