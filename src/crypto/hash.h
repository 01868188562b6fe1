// SHA-256, SHA-512, HMAC-SHA256, HMAC-SHA512 (libsodium), HKDF-SHA256 (RFC 5869) and a constant-time
// comparison. One-shot functions and incremental states, for inputs that are not in memory at once.
#pragma once

#include <sodium.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/error.h"

namespace wacore::hash {

inline constexpr size_t kSha256Bytes = 32;
inline constexpr size_t kSha512Bytes = 64;
inline constexpr size_t kMd5Bytes = 16;
// RFC 5869: HKDF-Expand produces at most 255 blocks of the hash's output.
inline constexpr size_t kHkdfMaxOutput = 255 * kSha256Bytes;

using Bytes = std::span<const uint8_t>;

void sha256(Bytes in, uint8_t out[kSha256Bytes]) noexcept;
void sha512(Bytes in, uint8_t out[kSha512Bytes]) noexcept;
// MD5 (RFC 1321), for checksums only (md5.cpp says where it is used); never for keys or MACs.
void md5(Bytes in, uint8_t out[kMd5Bytes]) noexcept;
// Keys of any length (longer than the block are hashed first, as RFC 2104 says).
void hmac_sha256(Bytes key, Bytes message, uint8_t out[kSha256Bytes]) noexcept;
void hmac_sha512(Bytes key, Bytes message, uint8_t out[kSha512Bytes]) noexcept;
// HMAC-SHA256 of two messages under one key, whose padded blocks are hashed once for both (two
// compressions fewer than two hmac_sha256 calls, plus the key's own hash for keys over a block).
void hmac_sha256_pair(Bytes key, Bytes first, uint8_t first_out[kSha256Bytes], Bytes second,
                      uint8_t second_out[kSha256Bytes]) noexcept;

// HKDF-Extract: PRK = HMAC-SHA256(salt, ikm). An empty salt means 32 zero bytes, which HMAC treats
// identically (the key is zero-padded to the block size either way); its padded blocks are hashed
// once per instance and kept, since the salt is public: pass {} rather than zero bytes for it.
void hkdf_extract(Bytes salt, Bytes ikm, uint8_t prk[kSha256Bytes]) noexcept;
// HKDF-Expand into out (1..kHkdfMaxOutput bytes; 0 is allowed and writes nothing).
Error hkdf_expand(const uint8_t prk[kSha256Bytes], Bytes info, std::span<uint8_t> out) noexcept;
// Extract then expand.
Error hkdf(Bytes ikm, Bytes salt, Bytes info, std::span<uint8_t> out) noexcept;

// Compares in time that depends only on n, never on where the inputs differ.
bool equal(const uint8_t* a, const uint8_t* b, size_t n) noexcept;

// Incremental forms. Each is a plain struct (safe to copy, no heap); wipe() erases it.
enum class Algorithm : uint8_t { sha256, sha512, hmac_sha256, hmac_sha512 };

struct Stream {
  Algorithm algorithm;
  union {
    crypto_hash_sha256_state sha256;
    crypto_hash_sha512_state sha512;
    crypto_auth_hmacsha256_state hmac256;
    crypto_auth_hmacsha512_state hmac512;
  } state;

  // key is ignored for plain SHA-2.
  void init(Algorithm a, Bytes key = {}) noexcept;
  void update(Bytes data) noexcept;
  // Writes digest_size() bytes and wipes the state.
  void final(uint8_t* out) noexcept;
  size_t digest_size() const noexcept;
  void wipe() noexcept;
};

}  // namespace wacore::hash
