#include "crypto/ghash.h"

#include <sodium.h>

#include <cstring>

namespace wacore::ghash {
namespace {

uint64_t load_be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | p[i];
  return v;
}

void store_be64(uint8_t* p, uint64_t v) {
  for (int i = 7; i >= 0; i--) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

// Carry-less 32x32 -> 64 product from 16 integer multiplications. Each operand is split into four
// masks holding every fourth bit. A product of two such parts has its wanted bits at positions of
// one residue mod 4, each the sum of at most 8 one-bit terms; such a sum is below 16, so it never
// carries into the next position of the same residue. The low bit of each sum is the XOR we want,
// and the masks at the end drop the carry bits, which sit at the other residues.
// Integer multiplication runs in constant time on wasm engines and on the x86-64/arm64 CPUs they use.
inline uint64_t bmul32(uint32_t x, uint32_t y) {
  constexpr uint32_t m0 = 0x11111111, m1 = 0x22222222, m2 = 0x44444444, m3 = 0x88888888;
  const uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
  const uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
  const uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
  const uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
  const uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
  const uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
  return (z0 & 0x1111111111111111ULL) | (z1 & 0x2222222222222222ULL) | (z2 & 0x4444444444444444ULL) |
         (z3 & 0x8888888888888888ULL);
}

struct U128 {
  uint64_t hi, lo;
};

// Carry-less 64x64 -> 128 by Karatsuba over 32-bit halves (3 bmul32 instead of 4).
inline U128 clmul64(uint64_t a, uint64_t b) {
  const uint32_t a0 = static_cast<uint32_t>(a), a1 = static_cast<uint32_t>(a >> 32);
  const uint32_t b0 = static_cast<uint32_t>(b), b1 = static_cast<uint32_t>(b >> 32);
  const uint64_t lo = bmul32(a0, b0);
  const uint64_t hi = bmul32(a1, b1);
  const uint64_t mid = bmul32(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
  return {hi ^ (mid >> 32), lo ^ (mid << 32)};
}

// Y = Y * H in GCM's field. GCM stores coefficient x^i at bit 127 - i of the big-endian block (a
// "reflected" order). A carry-less product of two reflected values is the reflected product
// shifted right by one, so: multiply as integers, shift the 256-bit result left by one, and reduce
// modulo x^128 + x^7 + x^2 + x + 1 in the reflected order, where the high-degree half is the low 128
// bits and each of its bits at position p folds onto positions p + 128 - e for e in {0, 1, 2, 7}.
inline void mul_h(State& s) {
  const U128 lo = clmul64(s.y_lo, s.h_lo);
  const U128 hi = clmul64(s.y_hi, s.h_hi);
  U128 mid = clmul64(s.y_hi ^ s.y_lo, s.h_hi ^ s.h_lo);
  mid.hi ^= lo.hi ^ hi.hi;
  mid.lo ^= lo.lo ^ hi.lo;

  const uint64_t z3 = hi.hi, z2 = hi.lo ^ mid.hi, z1 = lo.hi ^ mid.lo, z0 = lo.lo;
  uint64_t v3 = z3 << 1 | z2 >> 63;
  uint64_t v2 = z2 << 1 | z1 >> 63;
  uint64_t v1 = z1 << 1 | z0 >> 63;
  const uint64_t v0 = z0 << 1;

  v2 ^= v0 ^ (v0 >> 1) ^ (v0 >> 2) ^ (v0 >> 7);
  v1 ^= (v0 << 63) ^ (v0 << 62) ^ (v0 << 57);
  v3 ^= v1 ^ (v1 >> 1) ^ (v1 >> 2) ^ (v1 >> 7);
  v2 ^= (v1 << 63) ^ (v1 << 62) ^ (v1 << 57);
  s.y_hi = v3;
  s.y_lo = v2;
}

}  // namespace

void init(State& s, const uint8_t h[kBlockBytes]) noexcept {
  s.h_hi = load_be64(h);
  s.h_lo = load_be64(h + 8);
  s.y_hi = 0;
  s.y_lo = 0;
}

void update(State& s, const uint8_t* data, size_t len) noexcept {
  for (; len >= kBlockBytes; data += kBlockBytes, len -= kBlockBytes) {
    s.y_hi ^= load_be64(data);
    s.y_lo ^= load_be64(data + 8);
    mul_h(s);
  }
  if (len > 0) {
    uint8_t block[kBlockBytes] = {};
    std::memcpy(block, data, len);
    s.y_hi ^= load_be64(block);
    s.y_lo ^= load_be64(block + 8);
    mul_h(s);
    sodium_memzero(block, sizeof block);
  }
}

void update_lengths(State& s, uint64_t aad_bytes, uint64_t data_bytes) noexcept {
  s.y_hi ^= aad_bytes * 8;
  s.y_lo ^= data_bytes * 8;
  mul_h(s);
}

void digest(const State& s, uint8_t out[kBlockBytes]) noexcept {
  store_be64(out, s.y_hi);
  store_be64(out + 8, s.y_lo);
}

void wipe(State& s) noexcept { sodium_memzero(&s, sizeof s); }

}  // namespace wacore::ghash
