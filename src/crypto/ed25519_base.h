// Scalar multiplications on edwards25519 with tables of multiples of B made at first use instead of
// shipped (libsodium's precomputed table is 30 KB of near-random data, 28.7 KB of the gzip'ed module,
// docs/crypto.md): the fixed-base multiplication, constant time, and the variable-time
// double-scalar multiplication that verification needs.
#pragma once

#include <cstdint>

extern "C" {
#include "private/ed25519_ref10.h"  // libsodium's Edwards-curve internals (see curve25519.cpp)
}

namespace wacore::curve {

// h = a·B for a 32-byte little-endian scalar a < 2^255 (clamped keys and reduced scalars are).
void base_mult(ge25519_p3* h, const uint8_t a[32]) noexcept;

// The odd multiples P, 3P, ..., 15P of a point, for double_mult: made once per verifying key.
struct OddMultiples {
  ge25519_cached p[8];
};
void odd_multiples(OddMultiples& out, const ge25519_p3& p) noexcept;

// A point in affine form, ready for mixed addition: (y + x, y - x, 2d·x·y). Aligned to 8 so that
// the fixed-base select can read it as 64-bit words.
struct alignas(8) AffinePoint {
  fe25519 y_plus_x, y_minus_x, xy_2d;
};

// The comb of a point, for double_mult_comb: with the scalar's bits in five rows of 51 (5 · 51 = 255),
// entry i - 1 is the sum of 2^(51·j)·P over the set bits j of i, for i in 1..31. Making it costs
// 204 doublings, 26 additions and one batched inversion: about one verification's worth, spent in the
// key's second verification and paid back from its third on (each then about half of one).
constexpr int kCombTeeth = 5;
constexpr int kCombSpacing = 51;
struct CombMultiples {
  AffinePoint p[(1 << kCombTeeth) - 1];
};
void comb_multiples(CombMultiples& out, const ge25519_p3& p) noexcept;

// r = a·P + b·B as double_mult_vartime computes it, for scalars a, b < 2^255, P given by its comb:
// 51 doublings instead of about 253, and at most 51 mixed additions for each of P and B (B's comb
// made at first use). Variable time: for public inputs only.
void double_mult_comb(ge25519_p2* r, const uint8_t a[32], const CombMultiples& p, const uint8_t b[32]) noexcept;

// r = a·P + b·B for scalars a, b < 2^256, P given by its odd multiples. Variable time: for public
// inputs only (signature verification). Width-5 NAF for P, width-8 NAF for B (64 odd multiples of B,
// made at first use).
void double_mult_vartime(ge25519_p2* r, const uint8_t a[32], const OddMultiples& p, const uint8_t b[32]) noexcept;

}  // namespace wacore::curve
