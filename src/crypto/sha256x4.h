// Four SHA-256 compressions in lockstep, one per lane: for batches of independent hashes of equal
// shape (the LTHash's HKDF expansions of a patch's value MACs). The algorithm is written once over a
// 4 x 32-bit lane type: wasm v128 in the SIMD build (one instruction per operation for all four
// lanes), four plain words otherwise. Both compute the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace wacore::sha256x4 {

#if defined(__wasm_simd128__)
struct Lanes {
  v128_t v;
};
inline Lanes add(Lanes a, Lanes b) { return {wasm_i32x4_add(a.v, b.v)}; }
inline Lanes bxor(Lanes a, Lanes b) { return {wasm_v128_xor(a.v, b.v)}; }
inline Lanes band(Lanes a, Lanes b) { return {wasm_v128_and(a.v, b.v)}; }
inline Lanes bandnot(Lanes a, Lanes b) { return {wasm_v128_andnot(b.v, a.v)}; }  // ~a & b
inline Lanes bor(Lanes a, Lanes b) { return {wasm_v128_or(a.v, b.v)}; }
template <int N>
inline Lanes shr(Lanes a) { return {wasm_u32x4_shr(a.v, N)}; }
template <int N>
inline Lanes shl(Lanes a) { return {wasm_i32x4_shl(a.v, N)}; }
inline Lanes splat(uint32_t x) { return {wasm_i32x4_splat(static_cast<int32_t>(x))}; }
inline Lanes make(const uint32_t x[4]) {
  return {wasm_i32x4_make(static_cast<int32_t>(x[0]), static_cast<int32_t>(x[1]), static_cast<int32_t>(x[2]),
                          static_cast<int32_t>(x[3]))};
}
inline uint32_t lane(Lanes a, int i) {
  switch (i) {
    case 0: return static_cast<uint32_t>(wasm_i32x4_extract_lane(a.v, 0));
    case 1: return static_cast<uint32_t>(wasm_i32x4_extract_lane(a.v, 1));
    case 2: return static_cast<uint32_t>(wasm_i32x4_extract_lane(a.v, 2));
    default: return static_cast<uint32_t>(wasm_i32x4_extract_lane(a.v, 3));
  }
}
#else
struct Lanes {
  uint32_t v[4];
};
#define WACORE_LANEWISE(expr)                    \
  Lanes r;                                       \
  for (int i = 0; i < 4; i++) r.v[i] = (expr);   \
  return r
inline Lanes add(Lanes a, Lanes b) { WACORE_LANEWISE(a.v[i] + b.v[i]); }
inline Lanes bxor(Lanes a, Lanes b) { WACORE_LANEWISE(a.v[i] ^ b.v[i]); }
inline Lanes band(Lanes a, Lanes b) { WACORE_LANEWISE(a.v[i] & b.v[i]); }
inline Lanes bandnot(Lanes a, Lanes b) { WACORE_LANEWISE(~a.v[i] & b.v[i]); }
inline Lanes bor(Lanes a, Lanes b) { WACORE_LANEWISE(a.v[i] | b.v[i]); }
template <int N>
inline Lanes shr(Lanes a) { WACORE_LANEWISE(a.v[i] >> N); }
template <int N>
inline Lanes shl(Lanes a) { WACORE_LANEWISE(a.v[i] << N); }
inline Lanes splat(uint32_t x) { WACORE_LANEWISE(x); }
inline Lanes make(const uint32_t x[4]) { WACORE_LANEWISE(x[i]); }
#undef WACORE_LANEWISE
inline uint32_t lane(Lanes a, int i) { return a.v[i]; }
#endif

// SHA-256's initial state (FIPS 180-4 §5.3.3).
inline constexpr uint32_t kInitialState[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// One compression of a 64-byte block (16 big-endian words per lane) into state, for 4 lanes.
void compress(Lanes state[8], const Lanes block[16]) noexcept;

// The same compression for one lane of plain words (used to prepare constant states).
void compress1(uint32_t state[8], const uint32_t block[16]) noexcept;

}  // namespace wacore::sha256x4
