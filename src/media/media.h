// WhatsApp media encryption (docs/protocol.md §6): per-type keys from the media key, upload bytes
// (AES-256-CBC ciphertext followed by a 10-byte HMAC-SHA256), the file hashes, verification before
// any plaintext is released, streaming forms, range decryption, the streaming sidecar, and the
// media-retry GCM helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/error.h"
#include "crypto/aes_modes.h"
#include "crypto/hash.h"

namespace wacore::media {

inline constexpr size_t kMediaKeyBytes = 32;
inline constexpr size_t kMacBytes = 10;              // the truncated HMAC appended to the upload
inline constexpr size_t kSidecarChunk = 64 * 1024;   // streaming sidecar: one MAC per 64 KiB
inline constexpr size_t kRetryNonceBytes = 12;
inline constexpr std::string_view kRetryInfo = "WhatsApp Media Retry Notification";

struct Keys {
  uint8_t iv[16];
  uint8_t cipher[32];
  uint8_t mac[32];
  uint8_t ref[32];
};

// HKDF-SHA256(media key, no salt, info, 112) split into iv, cipher key, MAC key, ref key. info is
// "WhatsApp <Type> Keys" (the JS side maps media types to it).
Error derive_keys(std::span<const uint8_t> media_key, std::string_view info, Keys& out) noexcept;

// Encryption in one pass: upload bytes, SHA-256 of the plaintext, SHA-256 of the upload bytes.
struct Encryptor {
  aes::CbcEncryptor cbc;
  hash::Stream mac;         // HMAC-SHA256(mac key, iv || ciphertext)
  hash::Stream plain_hash;  // fileSha256
  hash::Stream enc_hash;    // fileEncSha256

  void init(const Keys& keys) noexcept;
  size_t update_size(size_t len) const noexcept { return cbc.update_size(len); }
  // Returns the ciphertext bytes written to out (update_size(len)).
  size_t update(const uint8_t* in, size_t len, uint8_t* out) noexcept;
  // Writes the last block and the MAC (16 + 10 bytes) and both hashes; wipes the state.
  void final(uint8_t tail[16 + kMacBytes], uint8_t file_sha256[32], uint8_t file_enc_sha256[32]) noexcept;
  void wipe() noexcept;
};

// Decryption in one pass over the upload bytes: the last 10 bytes are held back as the MAC. Plaintext
// handed out before final() is unauthenticated; final() checks the MAC (constant time) and the
// padding, and gives both hashes.
struct Decryptor {
  aes::CbcDecryptor cbc;
  hash::Stream mac;
  hash::Stream plain_hash;
  hash::Stream enc_hash;
  uint8_t held[kMacBytes + 16];  // the newest bytes, not yet known not to be the MAC
  uint8_t held_len;
  uint64_t total;

  void init(const Keys& keys) noexcept;
  size_t update_size(size_t len) const noexcept;
  size_t update(const uint8_t* in, size_t len, uint8_t* out) noexcept;
  // Errors: data_length (too short or not block-aligned), auth_tag (MAC), bad_padding.
  Error final(uint8_t tail[16], size_t* tail_len, uint8_t file_sha256[32], uint8_t file_enc_sha256[32]) noexcept;
  void wipe() noexcept;
};

// Whole files. encrypt: out holds encrypted_size(len). decrypt: the MAC (and, when given, the
// expected fileEncSha256) are checked before anything is decrypted; the expected fileSha256, when
// given, after (out is wiped if it does not match). out holds len - 10 bytes.
constexpr size_t encrypted_size(size_t n) { return aes::cbc_encrypted_size(n) + kMacBytes; }
void encrypt(const Keys& keys, std::span<const uint8_t> plaintext, uint8_t* out, uint8_t file_sha256[32],
             uint8_t file_enc_sha256[32]) noexcept;
Error decrypt(const Keys& keys, std::span<const uint8_t> upload, const uint8_t* expected_enc_sha256,
              const uint8_t* expected_sha256, uint8_t* out, size_t* out_len) noexcept;

// Media retry (the re-upload request for expired media): AES-256-GCM under
// HKDF-SHA256(media key, no salt, kRetryInfo, 32), the message id as additional data.
// retry_seal draws a fresh kRetryNonceBytes IV into `iv` and writes ciphertext || tag
// (plaintext.size() + 16 bytes) to out. retry_open takes the IV the notification carries (any
// non-empty length, as GCM allows) and writes sealed.size() - 16 bytes to out, only if the tag is
// valid. Errors: key_length, entropy (seal), iv_length, data_length, auth_tag (open).
Error retry_seal(std::span<const uint8_t> media_key, std::span<const uint8_t> message_id,
                 std::span<const uint8_t> plaintext, uint8_t iv[kRetryNonceBytes], uint8_t* out) noexcept;
Error retry_open(std::span<const uint8_t> media_key, std::span<const uint8_t> message_id, std::span<const uint8_t> iv,
                 std::span<const uint8_t> sealed, uint8_t* out) noexcept;

// Decrypts whole blocks from the middle of a file: prev_block is the ciphertext block before them
// (the IV for the first block of the file), ciphertext a multiple of 16 bytes. No MAC is checked
// and no padding removed: the caller asked for a range.
Error decrypt_range(const Keys& keys, const uint8_t prev_block[16], std::span<const uint8_t> ciphertext,
                    uint8_t* out) noexcept;

// The streaming sidecar (UNCONFIRMED layout, docs/protocol.md §6): for S = iv || upload, one 10-byte
// HMAC-SHA256 per 64 KiB window S[n*64K, (n+1)*64K + 16). out holds sidecar_size(len) bytes.
size_t sidecar_size(size_t upload_len) noexcept;
void sidecar(const Keys& keys, std::span<const uint8_t> upload, uint8_t* out) noexcept;

}  // namespace wacore::media
