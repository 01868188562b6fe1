// SHA-256 compressions in lockstep, one message per lane: for batches of independent hashes of equal
// shape (the LTHash's HKDF expansions of a patch's value MACs). The algorithm is written once over a
// lane type: twelve lanes as three wasm v128 in the SIMD build (one instruction per operation for
// four lanes), four plain words in other builds, or a single plain word. All compute the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace wacore::sha256x4 {

#if defined(__wasm_simd128__)
// kWidth messages in lockstep, kWidth / 4 independent v128 per word: three independent dependency
// chains per SHA-256 round keep the CPU busier than one (measured in docs/appstate.md).
inline constexpr int kWidth = 12;
inline constexpr int kVectors = kWidth / 4;
struct Lanes {
  v128_t v[kVectors];
};
#define WACORE_VECTORWISE(expr)                    \
  Lanes r;                                         \
  for (int i = 0; i < kVectors; i++) r.v[i] = (expr); \
  return r
inline Lanes add(Lanes a, Lanes b) { WACORE_VECTORWISE(wasm_i32x4_add(a.v[i], b.v[i])); }
inline Lanes bxor(Lanes a, Lanes b) { WACORE_VECTORWISE(wasm_v128_xor(a.v[i], b.v[i])); }
inline Lanes band(Lanes a, Lanes b) { WACORE_VECTORWISE(wasm_v128_and(a.v[i], b.v[i])); }
inline Lanes bor(Lanes a, Lanes b) { WACORE_VECTORWISE(wasm_v128_or(a.v[i], b.v[i])); }
// Bits of a where mask is set, of b elsewhere: one instruction.
inline Lanes bitselect(Lanes a, Lanes b, Lanes m) { WACORE_VECTORWISE(wasm_v128_bitselect(a.v[i], b.v[i], m.v[i])); }
template <int N>
inline Lanes shr(Lanes a) { WACORE_VECTORWISE(wasm_u32x4_shr(a.v[i], N)); }
template <int N>
inline Lanes shl(Lanes a) { WACORE_VECTORWISE(wasm_i32x4_shl(a.v[i], N)); }
inline Lanes splat(uint32_t x) { WACORE_VECTORWISE(wasm_i32x4_splat(static_cast<int32_t>(x))); }
inline Lanes make(const uint32_t x[kWidth]) {
  WACORE_VECTORWISE(wasm_v128_load(x + 4 * i));
}
#undef WACORE_VECTORWISE
inline void store(Lanes a, uint32_t x[kWidth]) {
  for (int k = 0; k < kVectors; k++) wasm_v128_store(x + 4 * k, a.v[k]);
}
#else
inline constexpr int kWidth = 4;
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
inline Lanes bor(Lanes a, Lanes b) { WACORE_LANEWISE(a.v[i] | b.v[i]); }
inline Lanes bitselect(Lanes a, Lanes b, Lanes m) { WACORE_LANEWISE(((a.v[i] ^ b.v[i]) & m.v[i]) ^ b.v[i]); }
template <int N>
inline Lanes shr(Lanes a) { WACORE_LANEWISE(a.v[i] >> N); }
template <int N>
inline Lanes shl(Lanes a) { WACORE_LANEWISE(a.v[i] << N); }
inline Lanes splat(uint32_t x) { WACORE_LANEWISE(x); }
inline Lanes make(const uint32_t x[kWidth]) { WACORE_LANEWISE(x[i]); }
#undef WACORE_LANEWISE
inline void store(Lanes a, uint32_t x[kWidth]) {
  for (int i = 0; i < kWidth; i++) x[i] = a.v[i];
}
#endif

// SHA-256's initial state (FIPS 180-4 §5.3.3).
inline constexpr uint32_t kInitialState[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// The same operations on one plain word, so that code written over a lane type also runs one
// message at a time (the scalar build's LTHash).
inline uint32_t add(uint32_t a, uint32_t b) { return a + b; }
inline uint32_t bxor(uint32_t a, uint32_t b) { return a ^ b; }
inline uint32_t band(uint32_t a, uint32_t b) { return a & b; }
inline uint32_t bor(uint32_t a, uint32_t b) { return a | b; }
inline uint32_t bitselect(uint32_t a, uint32_t b, uint32_t m) { return ((a ^ b) & m) ^ b; }
template <int N>
inline uint32_t shr(uint32_t a) { return a >> N; }
template <int N>
inline uint32_t shl(uint32_t a) { return a << N; }
// x in every lane of L (Lanes or uint32_t).
template <typename L>
inline L broadcast(uint32_t x) {
  if constexpr (std::is_same_v<L, uint32_t>) {
    return x;
  } else {
    return splat(x);
  }
}

// One compression of a 64-byte block (16 big-endian words per lane) into state: four lanes, or one
// plain word.
void compress(Lanes state[8], const Lanes block[16]) noexcept;
void compress(uint32_t state[8], const uint32_t block[16]) noexcept;

// A block that is the same in every lane and every call (padding-only blocks, fixed info strings)
// has a fixed message schedule: schedule() makes its 64 words with the round constants added, once,
// and compress_scheduled() runs only the rounds on them.
void schedule(const uint32_t block[16], uint32_t wk[64]) noexcept;
void compress_scheduled(Lanes state[8], const uint32_t wk[64]) noexcept;
void compress_scheduled(uint32_t state[8], const uint32_t wk[64]) noexcept;

}  // namespace wacore::sha256x4
