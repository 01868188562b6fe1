#include "crypto/sha256x4.h"

namespace wacore::sha256x4 {
namespace {

// 128-bit integers (a GCC/Clang extension, also on wasm32) for exact integer cube roots below.
__extension__ typedef unsigned __int128 U128;

// The 64 round constants: the first 32 bits of the fractional parts of the cube roots of the first
// 64 primes (FIPS 180-4 §4.2.2), computed exactly with integer cube roots rather than typed in.
struct RoundConstants {
  uint32_t k[64];
  RoundConstants() {
    int found = 0;
    for (uint32_t p = 2; found < 64; p++) {
      bool prime = true;
      for (uint32_t d = 2; d * d <= p; d++) {
        if (p % d == 0) prime = false;
      }
      if (!prime) continue;
      // floor(cbrt(p * 2^96)) = floor(cbrt(p) * 2^32); its low 32 bits are the fraction's.
      const U128 target = static_cast<U128>(p) << 96;
      uint64_t lo = 0, hi = uint64_t{1} << 36;
      while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        const U128 cube = static_cast<U128>(mid) * mid * mid;
        (cube <= target ? lo : hi) = mid;
      }
      k[found++] = static_cast<uint32_t>(lo);
    }
  }
};
const RoundConstants kRounds;

template <int N, typename T>
T rotr(T x) {
  if constexpr (sizeof(T) == sizeof(uint32_t)) {
    return (x >> N) | (x << (32 - N));
  } else {
    return bor(shr<N>(x), shl<32 - N>(x));
  }
}

}  // namespace

void compress(Lanes state[8], const Lanes block[16]) noexcept {
  Lanes w[64];
  for (int t = 0; t < 16; t++) w[t] = block[t];
  for (int t = 16; t < 64; t++) {
    const Lanes s0 = bxor(bxor(rotr<7>(w[t - 15]), rotr<18>(w[t - 15])), shr<3>(w[t - 15]));
    const Lanes s1 = bxor(bxor(rotr<17>(w[t - 2]), rotr<19>(w[t - 2])), shr<10>(w[t - 2]));
    w[t] = add(add(w[t - 16], s0), add(w[t - 7], s1));
  }
  Lanes a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6],
        h = state[7];
  for (int t = 0; t < 64; t++) {
    const Lanes big_s1 = bxor(bxor(rotr<6>(e), rotr<11>(e)), rotr<25>(e));
    const Lanes ch = bxor(band(e, f), bandnot(e, g));
    const Lanes t1 = add(add(add(h, big_s1), add(ch, splat(kRounds.k[t]))), w[t]);
    const Lanes big_s0 = bxor(bxor(rotr<2>(a), rotr<13>(a)), rotr<22>(a));
    const Lanes maj = bxor(bxor(band(a, b), band(a, c)), band(b, c));
    const Lanes t2 = add(big_s0, maj);
    h = g;
    g = f;
    f = e;
    e = add(d, t1);
    d = c;
    c = b;
    b = a;
    a = add(t1, t2);
  }
  state[0] = add(state[0], a);
  state[1] = add(state[1], b);
  state[2] = add(state[2], c);
  state[3] = add(state[3], d);
  state[4] = add(state[4], e);
  state[5] = add(state[5], f);
  state[6] = add(state[6], g);
  state[7] = add(state[7], h);
}

void compress1(uint32_t state[8], const uint32_t block[16]) noexcept {
  uint32_t w[64];
  for (int t = 0; t < 16; t++) w[t] = block[t];
  for (int t = 16; t < 64; t++) {
    const uint32_t s0 = rotr<7>(w[t - 15]) ^ rotr<18>(w[t - 15]) ^ (w[t - 15] >> 3);
    const uint32_t s1 = rotr<17>(w[t - 2]) ^ rotr<19>(w[t - 2]) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6],
           h = state[7];
  for (int t = 0; t < 64; t++) {
    const uint32_t t1 = h + (rotr<6>(e) ^ rotr<11>(e) ^ rotr<25>(e)) + ((e & f) ^ (~e & g)) + kRounds.k[t] + w[t];
    const uint32_t t2 = (rotr<2>(a) ^ rotr<13>(a) ^ rotr<22>(a)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

}  // namespace wacore::sha256x4
