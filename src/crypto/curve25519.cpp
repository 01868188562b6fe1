#include "crypto/curve25519.h"

#include <sodium.h>

#include <cstring>

#include "common/bytes.h"
#include "common/ct.h"
#include "common/random.h"

// libsodium's Edwards-curve internals (field, group and scalar arithmetic). They are not part of its
// public API, which is why all three builds compile libsodium from source (see cmake/Sodium.cmake).
extern "C" {
#include "private/ed25519_ref10.h"  // found through the SYSTEM include path: no warnings
}

namespace wacore::curve {
namespace {

// Prefix of XEdDSA's nonce hash ("hash1" in the XEdDSA paper): 0xFE followed by 31 bytes of 0xFF.
// It separates the nonce hash from the challenge hash, which starts with a curve point.
constexpr uint8_t kNoncePrefix[32] = {
    0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

// SHA-512 of the concatenation of `parts`, reduced mod L into 32 bytes.
void hash_to_scalar(std::initializer_list<std::span<const uint8_t>> parts, uint8_t out[32]) {
  crypto_hash_sha512_state st;
  crypto_hash_sha512_init(&st);
  for (auto p : parts) crypto_hash_sha512_update(&st, nonnull(p), p.size());
  uint8_t wide[64];
  crypto_hash_sha512_final(&st, wide);
  sc25519_reduce(wide);
  std::memcpy(out, wide, 32);
  sodium_memzero(wide, sizeof wide);
  sodium_memzero(&st, sizeof st);
}

}  // namespace

Error parse_public_key(std::span<const uint8_t> in, uint8_t out[kKeyBytes]) noexcept {
  if (in.size() == kPublicKeyBytes) {
    if (in[0] != kDjbType) return Error::key_type;
    std::memcpy(out, in.data() + 1, kKeyBytes);
    return Error::ok;
  }
  if (in.size() == kKeyBytes) {
    std::memcpy(out, in.data(), kKeyBytes);
    return Error::ok;
  }
  return Error::key_length;
}

void clamp(uint8_t key[kPrivateKeyBytes]) noexcept {
  key[0] &= 248;
  key[31] &= 127;
  key[31] |= 64;
}

Error generate_key_pair(uint8_t private_key[kPrivateKeyBytes], uint8_t public_key[kKeyBytes]) noexcept {
  if (Error e = random_bytes(private_key, kPrivateKeyBytes); e != Error::ok) return e;
  clamp(private_key);
  return public_from_private(private_key, public_key);
}

Error public_from_private(const uint8_t private_key[kPrivateKeyBytes],
                          uint8_t public_key[kKeyBytes]) noexcept {
  // crypto_scalarmult_curve25519_base clamps its own copy; its only failure (an all-zero result)
  // cannot happen for a clamped scalar times the base point, which has prime order.
  if (crypto_scalarmult_curve25519_base(public_key, private_key) != 0) return Error::key_length;
  return Error::ok;
}

Error agreement(const uint8_t public_key[kKeyBytes], const uint8_t private_key[kPrivateKeyBytes],
                uint8_t shared[kSharedSecretBytes]) noexcept {
  // libsodium returns -1 for the listed low-order points and for any all-zero output (checked in
  // constant time); both are our ERR_LOW_ORDER_POINT.
  if (crypto_scalarmult_curve25519(shared, private_key, public_key) != 0) {
    sodium_memzero(shared, kSharedSecretBytes);
    return Error::low_order_point;
  }
  return Error::ok;
}

namespace {

// The Edwards public key of the last key that signed. A group sender signs every message with one
// key, an identity signs its pre-keys one after another: for them this saves one of the two
// fixed-base multiplications of each signature. What the branch on the comparison reveals is only
// whether the key is the one used last time. The cached key is wiped when another replaces it.
struct LastSigner {
  bool valid = false;
  uint8_t a[32];
  uint8_t edwards_public[32];
} g_last_signer;

void edwards_public_of(const uint8_t a[32], uint8_t out[32]) noexcept {
  if (g_last_signer.valid && ct::declassify(sodium_memcmp(g_last_signer.a, a, 32) == 0)) {
    std::memcpy(out, g_last_signer.edwards_public, 32);
    return;
  }
  ge25519_p3 point;
  ge25519_scalarmult_base(&point, a);
  ge25519_p3_tobytes(out, &point);
  sodium_memzero(&point, sizeof point);
  std::memcpy(g_last_signer.a, a, 32);
  std::memcpy(g_last_signer.edwards_public, out, 32);
  g_last_signer.valid = true;
}

}  // namespace

void sign_with_random(const uint8_t private_key[kPrivateKeyBytes], std::span<const uint8_t> message,
                      const uint8_t random[kSignatureRandomBytes],
                      uint8_t signature[kSignatureBytes]) noexcept {
  uint8_t a[32];
  std::memcpy(a, private_key, sizeof a);
  clamp(a);  // a < 2^255, as ge25519_scalarmult_base requires

  ge25519_p3 point;
  uint8_t edwards_public[32];
  edwards_public_of(a, edwards_public);
  const uint8_t sign_bit = edwards_public[31] & 0x80;

  uint8_t r[32];
  hash_to_scalar({kNoncePrefix, std::span<const uint8_t>(a, 32), message,
                  std::span<const uint8_t>(random, kSignatureRandomBytes)},
                 r);
  ge25519_scalarmult_base(&point, r);
  ge25519_p3_tobytes(signature, &point);  // R

  uint8_t h[32];
  hash_to_scalar({std::span<const uint8_t>(signature, 32), edwards_public, message}, h);
  sc25519_muladd(signature + 32, h, a, r);  // S = h*a + r mod L
  signature[63] = static_cast<uint8_t>((signature[63] & 0x7F) | sign_bit);

  sodium_memzero(a, sizeof a);
  sodium_memzero(r, sizeof r);
  sodium_memzero(h, sizeof h);
  sodium_memzero(&point, sizeof point);
}

Error sign(const uint8_t private_key[kPrivateKeyBytes], std::span<const uint8_t> message,
           uint8_t signature[kSignatureBytes]) noexcept {
  uint8_t z[kSignatureRandomBytes];
  if (Error e = random_bytes(z, sizeof z); e != Error::ok) return e;
  sign_with_random(private_key, message, z, signature);
  sodium_memzero(z, sizeof z);
  return Error::ok;
}

namespace {

// -A in extended coordinates and the compressed Edwards key that the challenge hashes, for a
// Montgomery key u and the sign bit a signature carries. The result for the last key verified is
// kept (all of it public): a group's messages all come from one sender key, and decoding costs a
// field inversion and a square root per signature.
struct VerifyingKey {
  bool valid = false;
  bool ok = false;
  uint8_t u[kKeyBytes];
  uint8_t sign_bit = 0;
  uint8_t edwards_public[32];
  ge25519_p3 minus_a;
} g_last_verifier;

bool decode_verifying_key(const uint8_t public_key[kKeyBytes], uint8_t sign_bit, uint8_t edwards_public[32],
                          ge25519_p3& minus_a) noexcept {
  VerifyingKey& k = g_last_verifier;
  if (!k.valid || k.sign_bit != sign_bit || std::memcmp(k.u, public_key, kKeyBytes) != 0) {
    k.valid = true;
    k.sign_bit = sign_bit;
    std::memcpy(k.u, public_key, kKeyBytes);
    k.ok = false;
    // Birational map from Montgomery u to Edwards y = (u - 1) / (u + 1). u = -1 has no image.
    // fe25519_frombytes ignores bit 255 of u, as RFC 7748 and libsignal do.
    fe25519 u, one, num, den;
    fe25519_frombytes(u, public_key);
    fe25519_1(one);
    fe25519_add(den, u, one);
    if (fe25519_iszero(den)) return false;
    fe25519_sub(num, u, one);
    fe25519_invert(den, den);
    fe25519_mul(num, num, den);
    fe25519_tobytes(k.edwards_public, num);
    k.edwards_public[31] |= sign_bit;
    if (ge25519_frombytes_negate_vartime(&k.minus_a, k.edwards_public) != 0) return false;
    // libsignal hashes the compressed form of the decoded point. It differs from the bytes above
    // only when x = 0 (u = 0, y = -1), where the sign bit cannot survive decoding.
    if (fe25519_iszero(k.minus_a.X)) k.edwards_public[31] &= 0x7F;
    k.ok = true;
  }
  if (!k.ok) return false;
  std::memcpy(edwards_public, k.edwards_public, 32);
  minus_a = k.minus_a;
  return true;
}

}  // namespace

bool verify(const uint8_t public_key[kKeyBytes], std::span<const uint8_t> message,
            const uint8_t signature[kSignatureBytes]) noexcept {
  // S must be below 2^253 once the sign bit is removed (libsignal's check; S is not required to be
  // fully reduced below L, which libsignal-node's signatures would not always satisfy either).
  if ((signature[63] & 0x60) != 0) return false;

  uint8_t edwards_public[32];
  ge25519_p3 minus_a;
  if (!decode_verifying_key(public_key, signature[63] & 0x80, edwards_public, minus_a)) return false;

  uint8_t s[32];
  std::memcpy(s, signature + 32, sizeof s);
  s[31] &= 0x7F;

  uint8_t h[32];
  hash_to_scalar({std::span<const uint8_t>(signature, 32), edwards_public, message}, h);

  ge25519_p2 check;
  uint8_t r_check[32];
  ge25519_double_scalarmult_vartime(&check, h, &minus_a, s);  // h*(-A) + s*B
  ge25519_tobytes(r_check, &check);
  return crypto_verify_32(r_check, signature) == 0;
}

}  // namespace wacore::curve
