// Inversion modulo p = 2^255 - 19 in constant time by Bernstein and Yang's divsteps ("Fast
// constant-time gcd computation and modular inversion", 2019), for the curve code's one inversion per
// key, agreement, signature or verification. libsodium's fe25519_invert raises z to p - 2 (254
// squarings and 11 multiplications); this one takes 600 divsteps in 20 batches of 30, each batch's
// matrix found from the low bits alone and then applied to 270-bit values in 30-bit limbs with
// 64-bit products. docs/crypto.md has what it saves.
#pragma once

#include <cstdint>

extern "C" {
#include "private/ed25519_ref10.h"  // fe25519, ge25519_p2, ge25519_p3 (see curve25519.cpp)
}

namespace wacore::curve {

// out = 1 / z mod p, and 0 for z = 0 (as fe25519_invert). out may be z. Constant time in z.
void invert(fe25519 out, const fe25519 z) noexcept;

// The compressed Edwards point, as ge25519_p3_tobytes and ge25519_tobytes write it: y with the sign
// of x in bit 255. Constant time.
void p3_tobytes(uint8_t out[32], const ge25519_p3& p) noexcept;
void p2_tobytes(uint8_t out[32], const ge25519_p2& p) noexcept;

}  // namespace wacore::curve
