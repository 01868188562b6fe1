#include "crypto/sha256x4.h"

#include "common/unroll.h"

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

// The working variables a..h of a compression. round() is one SHA-256 round on the schedule word
// wk (K[t] already added): Ch(e, f, g) picks f where e is set and g elsewhere; Maj(a, b, c) is b
// where a and b agree and c elsewhere: one bitselect each on v128.
template <typename L>
struct Working {
  L a, b, c, d, e, f, g, h;
  explicit Working(const L s[8]) : a(s[0]), b(s[1]), c(s[2]), d(s[3]), e(s[4]), f(s[5]), g(s[6]), h(s[7]) {}
  void round(L wk) {
    const L big_s1 = bxor(bxor(rotr<6>(e), rotr<11>(e)), rotr<25>(e));
    const L t1 = add(add(h, wk), add(bitselect(f, g, e), big_s1));
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
  void add_to(L s[8]) const {
    const L v[8] = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; i++) s[i] = add(s[i], v[i]);
  }
};

// The 64 rounds over the state, wk(t) giving word t of the schedule with K[t] already added.
template <typename L, typename WK>
inline void rounds(L state[8], WK wk) {
  Working<L> x(state);
  for (int t = 0; t < 64; t++) x.round(wk(t));
  x.add_to(state);
}

// Word t >= 16 of the message schedule from the four words it depends on.
template <typename L>
inline L next_word(L w16, L w15, L w7, L w2) {
  const L s0 = bxor(bxor(rotr<7>(w15), rotr<18>(w15)), shr<3>(w15));
  const L s1 = bxor(bxor(rotr<17>(w2), rotr<19>(w2)), shr<10>(w2));
  return add(add(w16, s0), add(w7, s1));
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
    w[t] = next_word(w[t - 16], w[t - 15], w[t - 7], w[t - 2]);
    wk[t] = add(w[t], broadcast<L>(kRounds.k[t]));
  }
}

// Schedule first, then the rounds: the form for wide lanes (twelve v128 per word would not stay in
// registers as a window, and measured 2x slower that way).
template <typename L>
inline void compress_block(L state[8], const L block[16]) {
  L wk[64];
  expand(block, wk);
  rounds(state, [&](int t) { return wk[t]; });
}

// The form for one plain word: rounds 0-15 on the block's words, then three passes of 16 rounds that
// extend the schedule in a 16-word window as they go, unrolled so that the window and the working
// variables stay in wasm locals. 26% faster than compress_block in V8; unrolling all 64 rounds gains
// another 1.5% for twice the code, and the same unrolling of compress_scheduled loses (docs/appstate.md).
inline void compress_window(uint32_t state[8], const uint32_t block[16]) {
  uint32_t w[16];
  for (int t = 0; t < 16; t++) w[t] = block[t];
  Working<uint32_t> x(state);
WACORE_UNROLL_ALL
  for (int j = 0; j < 16; j++) x.round(w[j] + kRounds.k[j]);
WACORE_UNROLL_NONE
  for (int t = 16; t < 64; t += 16) {
WACORE_UNROLL_ALL
    for (int j = 0; j < 16; j++) {
      w[j] = next_word(w[j], w[(j + 1) & 15], w[(j + 9) & 15], w[(j + 14) & 15]);
      x.round(w[j] + kRounds.k[t + j]);
    }
  }
  x.add_to(state);
}

}  // namespace

void compress(Lanes state[8], const Lanes block[16]) noexcept { compress_block(state, block); }
void compress(uint32_t state[8], const uint32_t block[16]) noexcept { compress_window(state, block); }

void schedule(const uint32_t block[16], uint32_t wk[64]) noexcept { expand(block, wk); }

void compress_scheduled(Lanes state[8], const uint32_t wk[64]) noexcept {
  rounds(state, [&](int t) { return splat(wk[t]); });
}
void compress_scheduled(uint32_t state[8], const uint32_t wk[64]) noexcept {
  rounds(state, [&](int t) { return wk[t]; });
}

}  // namespace wacore::sha256x4
