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

// r = a·P + b·B for scalars a, b < 2^256, P given by its odd multiples. Variable time: for public
// inputs only (signature verification). Width-5 NAF for P, width-8 NAF for B (64 odd multiples of B,
// made at first use).
void double_mult_vartime(ge25519_p2* r, const uint8_t a[32], const OddMultiples& p, const uint8_t b[32]) noexcept;

}  // namespace wacore::curve
