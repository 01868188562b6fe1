#include "crypto/hash.h"

#include <algorithm>
#include <cstring>

#include "common/bytes.h"

namespace wacore::hash {

void sha256(Bytes in, uint8_t out[kSha256Bytes]) noexcept {
  crypto_hash_sha256(out, nonnull(in), in.size());
}

void sha512(Bytes in, uint8_t out[kSha512Bytes]) noexcept {
  crypto_hash_sha512(out, nonnull(in), in.size());
}

void hmac_sha256(Bytes key, Bytes message, uint8_t out[kSha256Bytes]) noexcept {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, nonnull(key), key.size());
  crypto_auth_hmacsha256_update(&st, nonnull(message), message.size());
  crypto_auth_hmacsha256_final(&st, out);  // also wipes st
}

void hmac_sha512(Bytes key, Bytes message, uint8_t out[kSha512Bytes]) noexcept {
  crypto_auth_hmacsha512_state st;
  crypto_auth_hmacsha512_init(&st, nonnull(key), key.size());
  crypto_auth_hmacsha512_update(&st, nonnull(message), message.size());
  crypto_auth_hmacsha512_final(&st, out);
}

void hmac_sha256_pair(Bytes key, Bytes first, uint8_t first_out[kSha256Bytes], Bytes second,
                      uint8_t second_out[kSha256Bytes]) noexcept {
  crypto_auth_hmacsha256_state keyed, st;
  crypto_auth_hmacsha256_init(&keyed, nonnull(key), key.size());
  st = keyed;
  crypto_auth_hmacsha256_update(&st, nonnull(first), first.size());
  crypto_auth_hmacsha256_final(&st, first_out);  // each final wipes the state it finishes
  crypto_auth_hmacsha256_update(&keyed, nonnull(second), second.size());
  crypto_auth_hmacsha256_final(&keyed, second_out);
}

void hkdf_extract(Bytes salt, Bytes ikm, uint8_t prk[kSha256Bytes]) noexcept {
  if (!salt.empty()) {
    hmac_sha256(salt, ikm, prk);
    return;
  }
  // The empty salt's keyed state depends on nothing secret: made at the first call, then copied.
  static const crypto_auth_hmacsha256_state zero_salt = [] {
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, nonnull(Bytes{}), 0);
    return st;
  }();
  crypto_auth_hmacsha256_state st = zero_salt;
  crypto_auth_hmacsha256_update(&st, nonnull(ikm), ikm.size());
  crypto_auth_hmacsha256_final(&st, prk);
}

Error hkdf_expand(const uint8_t prk[kSha256Bytes], Bytes info, std::span<uint8_t> out) noexcept {
  if (out.size() > kHkdfMaxOutput) return Error::output_length;
  // T(i) = HMAC(PRK, T(i-1) || info || i), i = 1..N; OKM = T(1) || T(2) || ... truncated.
  crypto_auth_hmacsha256_state base, st;
  crypto_auth_hmacsha256_init(&base, prk, kSha256Bytes);
  uint8_t t[kSha256Bytes];
  size_t done = 0;
  for (uint8_t i = 1; done < out.size(); i++) {
    st = base;  // the keyed inner/outer state, reused instead of rehashing the key each block
    if (i > 1) crypto_auth_hmacsha256_update(&st, t, sizeof t);
    crypto_auth_hmacsha256_update(&st, nonnull(info), info.size());
    crypto_auth_hmacsha256_update(&st, &i, 1);
    crypto_auth_hmacsha256_final(&st, t);
    const size_t n = std::min(sizeof t, out.size() - done);
    std::memcpy(out.data() + done, t, n);
    done += n;
  }
  sodium_memzero(t, sizeof t);
  sodium_memzero(&base, sizeof base);
  sodium_memzero(&st, sizeof st);
  return Error::ok;
}

Error hkdf(Bytes ikm, Bytes salt, Bytes info, std::span<uint8_t> out) noexcept {
  if (out.size() > kHkdfMaxOutput) return Error::output_length;
  uint8_t prk[kSha256Bytes];
  hkdf_extract(salt, ikm, prk);
  const Error e = hkdf_expand(prk, info, out);
  sodium_memzero(prk, sizeof prk);
  return e;
}

bool equal(const uint8_t* a, const uint8_t* b, size_t n) noexcept {
  // OR-accumulate the differences, then turn "zero or not" into a bit without a data-dependent
  // branch; the compiler cannot stop early because the result depends on every byte.
  uint32_t d = 0;
  for (size_t i = 0; i < n; i++) d |= static_cast<uint32_t>(a[i] ^ b[i]);
  return ((d - 1) >> 8) & 1;
}

void Stream::init(Algorithm a, Bytes key) noexcept {
  algorithm = a;
  switch (a) {
    case Algorithm::sha256: crypto_hash_sha256_init(&state.sha256); break;
    case Algorithm::sha512: crypto_hash_sha512_init(&state.sha512); break;
    case Algorithm::hmac_sha256: crypto_auth_hmacsha256_init(&state.hmac256, nonnull(key), key.size()); break;
    case Algorithm::hmac_sha512: crypto_auth_hmacsha512_init(&state.hmac512, nonnull(key), key.size()); break;
  }
}

void Stream::update(Bytes data) noexcept {
  switch (algorithm) {
    case Algorithm::sha256: crypto_hash_sha256_update(&state.sha256, nonnull(data), data.size()); break;
    case Algorithm::sha512: crypto_hash_sha512_update(&state.sha512, nonnull(data), data.size()); break;
    case Algorithm::hmac_sha256: crypto_auth_hmacsha256_update(&state.hmac256, nonnull(data), data.size()); break;
    case Algorithm::hmac_sha512: crypto_auth_hmacsha512_update(&state.hmac512, nonnull(data), data.size()); break;
  }
}

void Stream::final(uint8_t* out) noexcept {
  switch (algorithm) {
    case Algorithm::sha256: crypto_hash_sha256_final(&state.sha256, out); break;
    case Algorithm::sha512: crypto_hash_sha512_final(&state.sha512, out); break;
    case Algorithm::hmac_sha256: crypto_auth_hmacsha256_final(&state.hmac256, out); break;
    case Algorithm::hmac_sha512: crypto_auth_hmacsha512_final(&state.hmac512, out); break;
  }
  wipe();
}

size_t Stream::digest_size() const noexcept {
  return algorithm == Algorithm::sha256 || algorithm == Algorithm::hmac_sha256 ? kSha256Bytes : kSha512Bytes;
}

void Stream::wipe() noexcept { sodium_memzero(&state, sizeof state); }

}  // namespace wacore::hash
