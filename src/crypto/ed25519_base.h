// Fixed-base scalar multiplication on edwards25519, h = a·B, with the table of multiples of B made at
// first use instead of shipped: libsodium's precomputed table is 30 KB of near-random data, 28.7 KB
// of the gzip'ed module (docs/build.md). Constant time in a.
#pragma once

#include <cstdint>

extern "C" {
#include "private/ed25519_ref10.h"  // libsodium's Edwards-curve internals (see curve25519.cpp)
}

namespace wacore::curve {

// h = a·B for a 32-byte little-endian scalar a < 2^255 (clamped keys and reduced scalars are).
void base_mult(ge25519_p3* h, const uint8_t a[32]) noexcept;

}  // namespace wacore::curve
