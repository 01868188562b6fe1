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
  if constexpr (std::is_same_v<T, uint32_t>) {
    return (x >> N) | (x << (32 - N));  // one rotate instruction
  } else {
    return bor(shr<N>(x), shl<32 - N>(x));
  }
}

// The 64 rounds over the state, wk(t) giving word t of the schedule with K[t] already added.
// Ch(e, f, g) picks f where e is set and g elsewhere; Maj(a, b, c) is b where a and b agree and c
// elsewhere: one bitselect each on v128.
template <typename L, typename WK>
inline void rounds(L state[8], WK wk) {
  L a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6],
    h = state[7];
  for (int t = 0; t < 64; t++) {
    const L big_s1 = bxor(bxor(rotr<6>(e), rotr<11>(e)), rotr<25>(e));
    const L t1 = add(add(h, wk(t)), add(bitselect(f, g, e), big_s1));
    const L big_s0 = bxor(bxor(rotr<2>(a), rotr<13>(a)), rotr<22>(a));
    const L t2 = add(big_s0, bitselect(c, b, bxor(a, b)));
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

// The message schedule of a block, with the round constants added.
template <typename L>
inline void expand(const L block[16], L wk[64]) {
  L w[64];
  for (int t = 0; t < 16; t++) {
    w[t] = block[t];
    wk[t] = add(w[t], broadcast<L>(kRounds.k[t]));
  }
  for (int t = 16; t < 64; t++) {
    const L s0 = bxor(bxor(rotr<7>(w[t - 15]), rotr<18>(w[t - 15])), shr<3>(w[t - 15]));
    const L s1 = bxor(bxor(rotr<17>(w[t - 2]), rotr<19>(w[t - 2])), shr<10>(w[t - 2]));
    w[t] = add(add(w[t - 16], s0), add(w[t - 7], s1));
    wk[t] = add(w[t], broadcast<L>(kRounds.k[t]));
  }
}

template <typename L>
inline void compress_block(L state[8], const L block[16]) {
  L wk[64];
  expand(block, wk);
  rounds(state, [&](int t) { return wk[t]; });
}

}  // namespace

void compress(Lanes state[8], const Lanes block[16]) noexcept { compress_block(state, block); }
void compress(uint32_t state[8], const uint32_t block[16]) noexcept { compress_block(state, block); }

void schedule(const uint32_t block[16], uint32_t wk[64]) noexcept { expand(block, wk); }

void compress_scheduled(Lanes state[8], const uint32_t wk[64]) noexcept {
  rounds(state, [&](int t) { return splat(wk[t]); });
}
void compress_scheduled(uint32_t state[8], const uint32_t wk[64]) noexcept {
  rounds(state, [&](int t) { return wk[t]; });
}

}  // namespace wacore::sha256x4
