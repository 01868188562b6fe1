// Arithmetic mod p = 2^255 - 19 for the Montgomery ladder, in the radix of libsodium's fe25519 (ten
// signed limbs, limb i weighing 2^ceil(25.5 i)) but with every limb held in an int64_t. The values and
// their bounds are fe25519's, so the two convert by copying limbs; what changes is the code V8 makes of
// it. ref10's int32 limbs must be sign-extended before each 64-bit product, and with 34 operands live
// in a multiplication V8 keeps them in stack slots and reloads them. Held as int64, the same products
// and carries take 482 x86 instructions instead of 559 and 17-20% less time (`node bench/experiments/field-lanes.mjs`
// times the two forms, written out by hand there; docs/simd.md).
// Every function is constant time: no branch or index depends on a limb.
#pragma once

#include <cstdint>

#include "common/unroll.h"

namespace wacore::curve::fe64 {

struct Fe {
  int64_t v[10];
};

// Carries r into the limb widths: two interleaved chains (limbs 0..4 and 4..9), then the wrap of
// limb 9 into limb 0 (times 19) and one more step from limb 0; ref10's order. For the column sums
// multiply makes of its inputs, and for mul_small's products, it leaves each limb within 2^25 (even)
// or 2^24 (odd) plus a few units (ref10's bounds; the native Fe64 test checks them).
__attribute__((always_inline)) inline void carry(int64_t r[10]) noexcept {
  auto step = [&](int from, int bits) __attribute__((always_inline)) {
    const int64_t c = (r[from] + (int64_t{1} << (bits - 1))) >> bits;
    r[from] -= c * (int64_t{1} << bits);
    if (from == 9) r[0] += c * 19;
    else r[from + 1] += c;
  };
  step(0, 26);
  step(4, 26);
  step(1, 25);
  step(5, 25);
  step(2, 26);
  step(6, 26);
  step(3, 25);
  step(7, 25);
  step(4, 26);
  step(8, 26);
  step(9, 25);
  step(0, 26);
}

// h = f * g. Inputs with limbs up to 1.65 * 2^26 (even limbs) or 1.65 * 2^25 (odd) in magnitude:
// sums and differences of two outputs of mul/sq/mul_small. Outputs as carry() leaves them.
// Product f_i g_j lands on limb i + j. It carries a factor 2 when i and j are both odd (their weights
// sum to half a bit more than the limb's), and a factor 19 when i + j > 9 (2^255 = 19 mod p).
template <bool Square>
__attribute__((always_inline)) inline void multiply(Fe& h, const Fe& f, const Fe& g) noexcept {
  // The operands as the products need them, made once: f, 2f and 4f (a square's off-diagonal terms
  // count twice), and g, 19g.
  int64_t f1[10], f2[10], f4[10], g1[10], g19[10];
WACORE_UNROLL_ALL
  for (int i = 0; i < 10; i++) {
    f1[i] = f.v[i];
    f2[i] = 2 * f.v[i];
    f4[i] = 4 * f.v[i];
    g1[i] = g.v[i];
    g19[i] = 19 * g.v[i];
  }
  int64_t r[10];
WACORE_UNROLL_ALL
  for (int k = 0; k < 10; k++) {
    int64_t acc = 0;
WACORE_UNROLL_ALL
    for (int i = 0; i < 10; i++) {
      const int j = k - i < 0 ? k - i + 10 : k - i;
      if (Square && j < i) continue;  // counted at (j, i), twice
      const bool odd = (i & 1) && (j & 1);
      const int times = (odd ? 2 : 1) * (Square && i != j ? 2 : 1);
      const int64_t a = times == 1 ? f1[i] : times == 2 ? f2[i] : f4[i];
      const int64_t b = i + j > 9 ? g19[j] : g1[j];
      acc += a * b;
    }
    r[k] = acc;
  }
  carry(r);
WACORE_UNROLL_ALL
  for (int i = 0; i < 10; i++) h.v[i] = r[i];
}

inline void mul(Fe& h, const Fe& f, const Fe& g) noexcept { multiply<false>(h, f, g); }
inline void sq(Fe& h, const Fe& f) noexcept { multiply<true>(h, f, f); }

// h = f * n for a small n (121665, the ladder's a24), carried as mul's output is.
inline void mul_small(Fe& h, const Fe& f, int32_t n) noexcept {
  for (int i = 0; i < 10; i++) h.v[i] = f.v[i] * n;
  carry(h.v);
}

inline void add(Fe& h, const Fe& f, const Fe& g) noexcept {
  for (int i = 0; i < 10; i++) h.v[i] = f.v[i] + g.v[i];
}
inline void sub(Fe& h, const Fe& f, const Fe& g) noexcept {
  for (int i = 0; i < 10; i++) h.v[i] = f.v[i] - g.v[i];
}

// Swaps f and g when swap is 1, leaves them when it is 0, in constant time.
inline void cswap(Fe& f, Fe& g, unsigned swap) noexcept {
  const int64_t mask = -static_cast<int64_t>(swap);
  for (int i = 0; i < 10; i++) {
    const int64_t x = (f.v[i] ^ g.v[i]) & mask;
    f.v[i] ^= x;
    g.v[i] ^= x;
  }
}

// From and to libsodium's form (the same limbs, narrower): fe25519 is int32_t[10].
inline void widen(Fe& h, const int32_t f[10]) noexcept {
  for (int i = 0; i < 10; i++) h.v[i] = f[i];
}
inline void narrow(int32_t h[10], const Fe& f) noexcept {
  for (int i = 0; i < 10; i++) h[i] = static_cast<int32_t>(f.v[i]);
}

}  // namespace wacore::curve::fe64
