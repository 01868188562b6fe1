#include "crypto/fe_invert.h"

#include <sodium.h>

#include <cstring>

namespace wacore::curve {
namespace {

// A signed integer in nine limbs of 30 bits: value = sum v[i] 2^(30 i). Normalized, limbs 0..7 are
// in [0, 2^30) and limb 8 carries the sign and the rest.
constexpr int kLimbs = 9;
constexpr int64_t kMask = (int64_t{1} << 30) - 1;
struct Signed30 {
  int64_t v[kLimbs];
};

// p = 2^255 - 19: 2^30 - 19, seven limbs of 2^30 - 1, and 2^15 - 1 (bits 240..254).
constexpr Signed30 kP = {{kMask - 18, kMask, kMask, kMask, kMask, kMask, kMask, kMask, (int64_t{1} << 15) - 1}};

// 1 / x mod 2^30 for odd x, by Newton's iteration (each step doubles the correct low bits: 3, 6, ...).
constexpr uint32_t inverse_mod_2_30(uint32_t x) {
  uint32_t y = x;  // x · x = 1 mod 8 for odd x
  for (int i = 0; i < 4; i++) y *= 2 - x * y;
  return y & static_cast<uint32_t>(kMask);
}
constexpr uint32_t kPInverse = inverse_mod_2_30(static_cast<uint32_t>(kP.v[0]));
static_assert(((uint64_t{kPInverse} * static_cast<uint64_t>(kP.v[0])) & kMask) == 1);

// 30 divsteps need 30 low bits of f and g. With delta starting at 1/2 instead of 1 (the "half-delta"
// divstep), 590 divsteps bring g to 0 and f to ±1 for any 0 <= g <= f below 2^256: the bound
// computed and proved in Coq in github.com/sipa/safegcd-bounds, against 724 for delta = 1 (and
// Bernstein and Yang's 741). 20 batches make 600.
constexpr int kBatches = 20;
constexpr int kSteps = 30;

// The matrix of a batch: 2^30 · (f', g') = (u f + v g, q f + r g). Each row's |u| + |v| is at most 2^30.
struct Matrix {
  int64_t u, v, q, r;
};

// The divstep of Bernstein and Yang, kSteps times on the low 32 bits of f (odd) and g, branch-free:
//   delta > 0 and g odd:  (delta, f, g) -> (1 - delta, g, (g - f) / 2)
//   g odd otherwise:      (delta, f, g) -> (1 + delta, f, (g + f) / 2)
//   g even:               (delta, f, g) -> (1 + delta, f, g / 2)
// delta is a half-integer here, held as n = delta - 1/2: delta > 0 is n >= 0, 1 + delta is n + 1, and
// 1 - delta is -n, done as n = ~n (-n - 1) and the + 1 every step makes.
// The first case is done as a swap with negation, (f, g) = (g, -f), followed by the second. Each step
// loses the top bit of the low bits it works on, so the kSteps parities it reads are exact. The
// matrix rows (u, v) and (q, r) ride along packed into one 64-bit word each, u + 2^32 v: only sums,
// negations, doublings and masked selections touch them, which the packing carries exactly, and the
// entries stay within ±2^30. Returns the new n.
int32_t divsteps(int32_t n, uint32_t f, uint32_t g, Matrix& t) noexcept {
  uint64_t row1 = 1;                   // (u, v) = (1, 0)
  uint64_t row2 = uint64_t{1} << 32;   // (q, r) = (0, 1)
  for (int i = 0; i < kSteps; i++) {
    const uint32_t odd = 0u - (g & 1);
    // All ones when delta > 0 (n >= 0) and g is odd.
    const uint32_t swap = odd & ~static_cast<uint32_t>(n >> 31);
    const uint64_t swap64 = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(swap)));
    const uint32_t x = (f ^ g) & swap;
    f ^= x;
    g ^= x;
    g = (g ^ swap) - swap;  // -f after the swap
    const uint64_t y = (row1 ^ row2) & swap64;
    row1 ^= y;
    row2 ^= y;
    row2 = (row2 ^ swap64) - swap64;
    n ^= static_cast<int32_t>(swap);
    // Now g is odd exactly when it was: add f to it when it is, then halve.
    g = (g + (f & odd)) >> 1;
    row2 += row1 & (static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(odd))));
    row1 <<= 1;
    n += 1;
  }
  // Unpack: the low half is u (a signed 32-bit value), the rest (word - u) / 2^32 is v.
  const int64_t u = static_cast<int32_t>(static_cast<uint32_t>(row1));
  const int64_t q = static_cast<int32_t>(static_cast<uint32_t>(row2));
  t.u = u;
  t.v = static_cast<int64_t>(row1 - static_cast<uint64_t>(u)) >> 32;
  t.q = q;
  t.r = static_cast<int64_t>(row2 - static_cast<uint64_t>(q)) >> 32;
  return n;
}

// (a, b) = (u a + v b, q a + r b) / 2^30, in one pass over the limbs.
//   kModP false, for (f, g): exact, the matrix having cleared the low 30 bits.
//   kModP true, for (d, e): multiples ma p and mb p are added first, with ma, mb in [0, 2^30) chosen
//   to clear the low 30 bits, so that f = d z and g = e z (mod p) keep holding. With |d|, |e| < B p
//   before, the results are in (-B p, (B + 1) p): after the last batch within 21 p, well inside
//   nine limbs.
template <bool kModP>
void apply(Signed30& a, Signed30& b, const Matrix& t) noexcept {
  int64_t ca = t.u * a.v[0] + t.v * b.v[0];
  int64_t cb = t.q * a.v[0] + t.r * b.v[0];
  int64_t ma = 0, mb = 0;
  if constexpr (kModP) {
    ma = (0u - static_cast<uint32_t>(ca) * kPInverse) & kMask;
    mb = (0u - static_cast<uint32_t>(cb) * kPInverse) & kMask;
    ca += ma * kP.v[0];
    cb += mb * kP.v[0];
  }
  ca >>= 30;
  cb >>= 30;
  for (int i = 1; i < kLimbs; i++) {
    ca += t.u * a.v[i] + t.v * b.v[i] + (kModP ? ma * kP.v[i] : 0);
    cb += t.q * a.v[i] + t.r * b.v[i] + (kModP ? mb * kP.v[i] : 0);
    a.v[i - 1] = ca & kMask;
    b.v[i - 1] = cb & kMask;
    ca >>= 30;
    cb >>= 30;
  }
  a.v[kLimbs - 1] = ca;
  b.v[kLimbs - 1] = cb;
}

// Little-endian bytes of a value below 2^255 to normalized limbs, and back.
void from_bytes(Signed30& out, const uint8_t s[32]) noexcept {
  uint64_t acc = 0;
  int bits = 0, limb = 0;
  for (int i = 0; i < 32; i++) {
    acc |= uint64_t{s[i]} << bits;
    bits += 8;
    if (bits >= 30) {
      out.v[limb++] = static_cast<int64_t>(acc & kMask);
      acc >>= 30;
      bits -= 30;
    }
  }
  out.v[limb] = static_cast<int64_t>(acc);  // limb 8: the last 16 bits
}

void to_bytes(uint8_t s[32], const Signed30& in) noexcept {
  uint64_t acc = 0;
  int bits = 0, limb = 0;
  for (int i = 0; i < 32; i++) {
    if (bits < 8) {
      acc |= static_cast<uint64_t>(in.v[limb++]) << bits;
      bits += 30;
    }
    s[i] = static_cast<uint8_t>(acc);
    acc >>= 8;
    bits -= 8;
  }
}

// Carries a value with limbs of any sign into normalized limbs.
void normalize(Signed30& a) noexcept {
  for (int i = 0; i < kLimbs - 1; i++) {
    a.v[i + 1] += a.v[i] >> 30;
    a.v[i] &= kMask;
  }
}

// Folds bit 255 and above into the low bits (2^255 = 19 mod p), for a normalized nonnegative value
// below 2^261: afterwards it is below 2^255 (and congruent mod p).
void fold(Signed30& a) noexcept {
  for (int k = 0; k < 2; k++) {
    const int64_t high = a.v[kLimbs - 1] >> 15;
    a.v[kLimbs - 1] &= (int64_t{1} << 15) - 1;
    a.v[0] += 19 * high;
    normalize(a);
  }
}

template <typename T>
void wipe(T& x) noexcept {
  sodium_memzero(&x, sizeof x);
}

}  // namespace

void invert(fe25519 out, const fe25519 z) noexcept {
  uint8_t s[32];
  fe25519_tobytes(s, z);  // canonical: below p
  Signed30 f = kP, g, d{}, e{};
  from_bytes(g, s);
  e.v[0] = 1;
  int32_t n = 0;  // delta = 1/2
  Matrix t;
  for (int i = 0; i < kBatches; i++) {
    n = divsteps(n, static_cast<uint32_t>(f.v[0] | (f.v[1] << 30)), static_cast<uint32_t>(g.v[0] | (g.v[1] << 30)), t);
    apply<true>(d, e, t);
    apply<false>(f, g, t);
  }
  // g = 0 and f = ±1 = d z: 1 / z = f d. Negate d when f = -1 (limb 8 is then -1), add 27 p to make
  // it positive (|d| < 21 p), then fold it below 2^255.
  const int64_t negative = f.v[kLimbs - 1] >> 63;
  for (int i = 0; i < kLimbs; i++) d.v[i] = ((d.v[i] ^ negative) - negative) + 27 * kP.v[i];
  normalize(d);
  fold(d);
  to_bytes(s, d);
  fe25519_frombytes(out, s);  // below 2^255, congruent to 1 / z: what the field operations take
  wipe(s);
  wipe(f);
  wipe(g);
  wipe(d);
  wipe(e);
  wipe(t);
  wipe(n);
}

namespace {
// y = Y/Z with the sign of x = X/Z in bit 255: the compressed form of a point in either coordinates.
void compress(uint8_t out[32], const fe25519 X, const fe25519 Y, const fe25519 Z) noexcept {
  fe25519 recip, x, y;
  invert(recip, Z);
  fe25519_mul(x, X, recip);
  fe25519_mul(y, Y, recip);
  fe25519_tobytes(out, y);
  out[31] = static_cast<uint8_t>(out[31] ^ (fe25519_isnegative(x) << 7));
  wipe(recip);
  wipe(x);
  wipe(y);
}
}  // namespace

void p3_tobytes(uint8_t out[32], const ge25519_p3& p) noexcept { compress(out, p.X, p.Y, p.Z); }
void p2_tobytes(uint8_t out[32], const ge25519_p2& p) noexcept { compress(out, p.X, p.Y, p.Z); }

}  // namespace wacore::curve
