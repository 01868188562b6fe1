#include "crypto/curve25519.h"

#include <sodium.h>

#include <cstring>

#include "common/bytes.h"
#include "common/ct.h"
#include "common/random.h"

// libsodium's Edwards-curve internals (field, group and scalar arithmetic). They are not part of its
// public API, which is why all three builds compile libsodium from source (see cmake/Sodium.cmake).
// The header comes through ed25519_base.h, found through the SYSTEM include path: no warnings.
#include "crypto/ed25519_base.h"
#include "crypto/fe64.h"
#include "crypto/fe_invert.h"

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
  // a·B on the Edwards curve, then its Montgomery u = (1 + y) / (1 - y) = (Z + Y) / (Z - Y): what
  // crypto_scalarmult_curve25519_base computes, through our table (ed25519_base.h). Z - Y is never
  // zero: that would be y = 1, the identity, and a clamped scalar is not a multiple of B's order.
  uint8_t a[32];
  std::memcpy(a, private_key, sizeof a);
  clamp(a);
  ge25519_p3 point;
  base_mult(&point, a);
  fe25519 num, den;
  fe25519_add(num, point.Z, point.Y);
  fe25519_sub(den, point.Z, point.Y);
  invert(den, den);
  fe25519_mul(num, num, den);
  fe25519_tobytes(public_key, num);
  sodium_memzero(a, sizeof a);
  sodium_memzero(&point, sizeof point);
  sodium_memzero(num, sizeof num);
  sodium_memzero(den, sizeof den);
  return Error::ok;
}

Error agreement(const uint8_t public_key[kKeyBytes], const uint8_t private_key[kPrivateKeyBytes],
                uint8_t shared[kSharedSecretBytes]) noexcept {
  // The Montgomery ladder of RFC 7748 §5. (libsodium's own
  // crypto_scalarmult_curve25519 is not called: its implementation table also holds its fixed-base
  // function, which would link the 30 KB table that ed25519_base.h exists to avoid.)
  uint8_t k[32];
  std::memcpy(k, private_key, sizeof k);
  clamp(k);
  // The ladder runs on int64 limbs (fe64.h: V8 makes 482 x86 instructions of a multiplication in
  // that form, 559 of fe25519's int32 limbs); the final inversion converts back.
  using namespace fe64;
  fe25519 u;
  fe25519_frombytes(u, public_key);  // bit 255 ignored, values >= p reduced, as RFC 7748 says
  Fe x1, x2{}, z2{}, x3, z3{}, a, aa, b, bb, e, c, d, da, cb;
  widen(x1, u);
  x2.v[0] = 1;
  x3 = x1;
  z3.v[0] = 1;
  unsigned swap = 0;
  for (int t = 254; t >= 0; t--) {
    const unsigned bit = (k[t >> 3] >> (t & 7)) & 1;
    swap ^= bit;
    cswap(x2, x3, swap);
    cswap(z2, z3, swap);
    swap = bit;
    add(a, x2, z2);
    sq(aa, a);
    sub(b, x2, z2);
    sq(bb, b);
    sub(e, aa, bb);
    add(c, x3, z3);
    sub(d, x3, z3);
    mul(da, d, a);
    mul(cb, c, b);
    add(x3, da, cb);
    sq(x3, x3);
    sub(z3, da, cb);
    sq(z3, z3);
    mul(z3, z3, x1);
    mul(x2, aa, bb);
    mul_small(z2, e, 121665);  // a24 = (486662 - 2) / 4
    add(z2, z2, aa);
    mul(z2, z2, e);
  }
  cswap(x2, x3, swap);
  cswap(z2, z3, swap);
  fe25519 xo, zo;
  narrow(xo, x2);
  narrow(zo, z2);
  invert(zo, zo);
  fe25519_mul(xo, xo, zo);
  fe25519_tobytes(shared, xo);
  for (Fe* f : {&x2, &z2, &x3, &z3, &a, &aa, &b, &bb, &e, &c, &d, &da, &cb}) sodium_memzero(f, sizeof *f);
  sodium_memzero(xo, sizeof xo);
  sodium_memzero(zo, sizeof zo);
  sodium_memzero(k, sizeof k);
  // An all-zero result (checked in constant time) means a low-order public key: ERR_LOW_ORDER_POINT,
  // as libsodium, OpenSSL and Wycheproof's "acceptable" cases have it.
  uint8_t any = 0;
  for (size_t i = 0; i < kSharedSecretBytes; i++) any = static_cast<uint8_t>(any | shared[i]);
  if (ct::declassify(any == 0)) {
    sodium_memzero(shared, kSharedSecretBytes);
    return Error::low_order_point;
  }
  return Error::ok;
}

namespace {

// The Edwards public key of the last key that signed. A group sender signs every message with one
// key, an identity signs its pre-keys one after another: for them this saves one of the two
// fixed-base multiplications of each signature. What the branch on the comparison reveals is only
// whether the key is the one used last time. The key itself is not kept (it would outlive the call
// in memory): a SHA-256 fingerprint of it, under a label of its own, identifies it.
struct LastSigner {
  bool valid = false;
  uint8_t fingerprint[32];
  uint8_t edwards_public[32];
} g_last_signer;

void signer_fingerprint(const uint8_t a[32], uint8_t out[32]) noexcept {
  static constexpr char kLabel[] = "wacore last signer";
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, reinterpret_cast<const uint8_t*>(kLabel), sizeof kLabel - 1);
  crypto_hash_sha256_update(&st, a, 32);
  crypto_hash_sha256_final(&st, out);  // wipes the state
}

void edwards_public_of(const uint8_t a[32], uint8_t out[32]) noexcept {
  uint8_t fingerprint[32];
  signer_fingerprint(a, fingerprint);
  WACORE_CT_PUBLIC(fingerprint, sizeof fingerprint);  // a one-way function of the key: public
  if (g_last_signer.valid && std::memcmp(g_last_signer.fingerprint, fingerprint, 32) == 0) {
    std::memcpy(out, g_last_signer.edwards_public, 32);
    return;
  }
  ge25519_p3 point;
  base_mult(&point, a);
  p3_tobytes(out, point);
  sodium_memzero(&point, sizeof point);
  std::memcpy(g_last_signer.fingerprint, fingerprint, 32);
  std::memcpy(g_last_signer.edwards_public, out, 32);
  g_last_signer.valid = true;
}

}  // namespace

void sign_with_random(const uint8_t private_key[kPrivateKeyBytes], std::span<const uint8_t> message,
                      const uint8_t random[kSignatureRandomBytes],
                      uint8_t signature[kSignatureBytes]) noexcept {
  uint8_t a[32];
  std::memcpy(a, private_key, sizeof a);
  clamp(a);  // a < 2^255, as base_mult requires

  ge25519_p3 point;
  uint8_t edwards_public[32];
  edwards_public_of(a, edwards_public);
  const uint8_t sign_bit = edwards_public[31] & 0x80;

  uint8_t r[32];
  hash_to_scalar({kNoncePrefix, std::span<const uint8_t>(a, 32), message,
                  std::span<const uint8_t>(random, kSignatureRandomBytes)},
                 r);
  base_mult(&point, r);
  p3_tobytes(signature, point);  // R

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

// What verification needs of a key (a Montgomery u with the sign bit a signature carries), all of it
// public: the compressed Edwards key that the challenge hashes and the odd multiples of -A, and from
// the key's second verification on the comb of -A (ed25519_base.h), with which a verification takes
// about half the time (the second verification pays for making it). kVerifyingKeys of them are
// kept, the least recently used replaced: a group's messages come from one sender key each, and a
// busy group interleaves a few senders. Which key hits is observable in timing, and public.
constexpr int kVerifyingKeys = 8;
struct VerifyingKey {
  bool valid = false;
  bool ok = false;
  bool has_comb = false;
  uint8_t u[kKeyBytes];
  uint8_t sign_bit = 0;
  uint8_t edwards_public[32];
  uint64_t last_use = 0;
  uint32_t uses = 0;
  ge25519_p3 minus_a_point;
  OddMultiples minus_a;
  CombMultiples comb;
};
VerifyingKey g_verifiers[kVerifyingKeys];
uint64_t g_verify_clock = 0;

VerifyingKey* decode_verifying_key(const uint8_t public_key[kKeyBytes], uint8_t sign_bit) noexcept {
  VerifyingKey* k = nullptr;
  VerifyingKey* oldest = &g_verifiers[0];
  for (VerifyingKey& e : g_verifiers) {
    if (e.valid && e.sign_bit == sign_bit && std::memcmp(e.u, public_key, kKeyBytes) == 0) k = &e;
    if (!e.valid || (oldest->valid && e.last_use < oldest->last_use)) oldest = &e;
  }
  if (k == nullptr) {
    k = oldest;
    k->valid = true;
    k->has_comb = false;
    k->uses = 0;
    k->sign_bit = sign_bit;
    std::memcpy(k->u, public_key, kKeyBytes);
    k->ok = false;
    // Birational map from Montgomery u to Edwards y = (u - 1) / (u + 1). u = -1 has no image.
    // fe25519_frombytes ignores bit 255 of u, as RFC 7748 and libsignal do.
    fe25519 u, one, num, den;
    fe25519_frombytes(u, public_key);
    fe25519_1(one);
    fe25519_add(den, u, one);
    if (!fe25519_iszero(den)) {
      fe25519_sub(num, u, one);
      invert(den, den);
      fe25519_mul(num, num, den);
      fe25519_tobytes(k->edwards_public, num);
      k->edwards_public[31] |= sign_bit;
      if (ge25519_frombytes_negate_vartime(&k->minus_a_point, k->edwards_public) == 0) {
        // libsignal hashes the compressed form of the decoded point. It differs from the bytes
        // above only when x = 0 (u = 0, y = -1), where the sign bit cannot survive decoding.
        if (fe25519_iszero(k->minus_a_point.X)) k->edwards_public[31] &= 0x7F;
        odd_multiples(k->minus_a, k->minus_a_point);
        k->ok = true;
      }
    }
  }
  k->last_use = ++g_verify_clock;
  k->uses++;
  return k->ok ? k : nullptr;
}

}  // namespace

bool verify(const uint8_t public_key[kKeyBytes], std::span<const uint8_t> message,
            const uint8_t signature[kSignatureBytes]) noexcept {
  // S must be below 2^253 once the sign bit is removed (libsignal's check; S is not required to be
  // fully reduced below L, which libsignal-node's signatures would not always satisfy either).
  if ((signature[63] & 0x60) != 0) return false;

  VerifyingKey* key = decode_verifying_key(public_key, signature[63] & 0x80);
  if (key == nullptr) return false;

  uint8_t s[32];
  std::memcpy(s, signature + 32, sizeof s);
  s[31] &= 0x7F;

  uint8_t h[32];
  hash_to_scalar({std::span<const uint8_t>(signature, 32), key->edwards_public, message}, h);

  ge25519_p2 check;
  uint8_t r_check[32];
  // h*(-A) + s*B; h < L and s < 2^253, within the comb's 255 bits.
  if (key->uses >= 2 && !key->has_comb) {
    comb_multiples(key->comb, key->minus_a_point);
    key->has_comb = true;
  }
  if (key->has_comb) {
    double_mult_comb(&check, h, key->comb, s);
  } else {
    double_mult_vartime(&check, h, key->minus_a, s);
  }
  p2_tobytes(r_check, check);
  return crypto_verify_32(r_check, signature) == 0;
}

}  // namespace wacore::curve
