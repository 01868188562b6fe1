// The bitsliced AES-256 rounds, written once as templates over a word type W.
//
// Word types. W is a bundle of 64-bit lanes with ^ & |, lane-wise shifts and rotations by constants
// and a broadcast of a 64-bit value to every lane (the list is at "Word types" below):
//   uint64_t  one lane, 4 blocks per batch (native and scalar wasm builds);
//   Pair      two uint64_t lanes, 8 blocks per batch, portable C++: it computes exactly what V128
//             computes, so the native tests (and valgrind) run the SIMD build's algorithm;
//   V128      wasm v128 as two 64-bit lanes, 8 blocks per batch (only with __wasm_simd128__).
// Every operation acts on each 64-bit lane on its own, so the same code is right for all three;
// only the primitives differ per type (V128 uses shuffles and 16-bit shifts where they are
// cheaper).
//
// Layout. The state of a batch is 8 words q[0..7]; q[b] is a bit plane holding bit b of every state
// byte. In a 64-bit lane, byte (row r, column c) of block k of that lane's four blocks is at bit
//     16*r + 4*c + k
// so each row is a 16-bit chunk and each byte position a nibble of 4 blocks: rotating a lane right
// by 16 brings row r+1 onto row r, and rotating the 16-bit chunks by 4 bits moves a row by one
// column.
//
// Fixslicing (the technique of Adomnicai and Peyrin, "Fixslicing AES-like ciphers", TCHES 2021,
// worked out here for this layout). ShiftRows is never applied to the state. During encryption,
// after round r we hold H with true state SR^j(H), j = r mod 4 (SR = ShiftRows). On H, MixColumns
// reads "2 H(r,c) + 3 H(r+1,c+j) + H(r+2,c+2j) + H(r+3,c+3j)": each row step also moves j columns,
// which rotr_units does along with the row rotation (free for j = 0, a chunk rotation otherwise),
// so there are four MixColumns variants, one per j. AddRoundKey needs round key r in the same
// order, SR^-j(rk_r), and the key schedule stores it so. After round 14 (j = 2) one SR^2 (a byte
// swap in rows 1 and 3) restores the natural order. Decryption starts by applying SR^2 to the
// ciphertext; its round r then holds H with true state SR^-j'(H), j' = -r mod 4, which needs the
// very same key order SR^-r(rk_r) and the same MixColumns variant as encryption's round r, and it
// ends in natural order: one key set serves both directions.
//
// S-box. Boyar and Peralta's circuits, transcribed gate for gate from their published straight-line
// programs (NIST circuit complexity project, github.com/usnistgov/Circuits, data/slp/aes/old-2020):
//   forward  113 gates (32 AND, 77 XOR, 4 XNOR), Boyar-Matthews-Peralta, J. Cryptology 2013,
//            doi:10.1007/s00145-012-9124-7, improved by 2 XORs;
//   inverse  127 gates (34 AND, 83 XOR, 10 XNOR), Boyar-Peralta, "A depth-16 circuit for the AES
//            S-box", IFIP SEC 2012.
// Their XNORs are dropped: the forward circuit then computes S(x) ^ 0x63 and the inverse circuit
// InvS(x ^ 0x63) (the 4 forward XNORs are the output constant; the 10 inverse ones are the affine
// constant of the input, pushed through the top linear layer). A byte-uniform constant passes
// unchanged through ShiftRows, MixColumns and InvMixColumns (their coefficients sum to 1), so 0x63
// is folded into round keys 1..14, and the rounds run 109 and 117 gates with no NOT at all.
// aes_test.cpp checks both circuits on all 256 inputs against GF(2^8) arithmetic.
//
// Registers. Everything below is force-inlined into one function per direction and word type, so
// the 8 planes live in registers (wasm locals) for the whole batch and never in memory that could
// be read later: in wasm, nothing of the state touches linear memory. MixColumns produces its
// planes one at a time to keep few temporaries live; spills are what costs most after the gates.
//
// Constant time: only bitwise operations, shifts by constants and loads at public addresses; no
// table, no branch on data. Loops run over public counts (blocks, rounds).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

#include "crypto/aes.h"

// See "Registers" above.
#define WACORE_AES_INLINE [[gnu::always_inline]] inline
#define WACORE_AES_INLINE_LAMBDA __attribute__((always_inline))

namespace wacore::aes::bitslice {

static_assert(std::endian::native == std::endian::little,
              "blocks are read as little-endian 64-bit words");

// -------------------------------------------------------------------------------------------------
// Word types and their primitive operations:
//   ^ & |                    bitwise;
//   shl<N>, shr<N>           shift each 64-bit lane;
//   rotr<N>                  rotate each 64-bit lane right, N = 16 or 32;
//   rotr_units<N, B>         rotate each 16-bit unit right by B bits (B = 0, 4, 8 or 12), then each
//                            64-bit lane right by N: the row and column moves of MixColumns in one.

// 16-bit units with the low 16 - B bits of each set: what a right rotation by B moves down.
constexpr uint64_t unit_low_mask(unsigned b) { return 0x0001000100010001ull * (0xFFFFull >> b); }

// uint64_t: one lane.
template <unsigned N>
inline uint64_t shl(uint64_t x) noexcept {
  return x << N;
}
template <unsigned N>
inline uint64_t shr(uint64_t x) noexcept {
  return x >> N;
}
template <unsigned N>
inline uint64_t rotr(uint64_t x) noexcept {
  return std::rotr(x, static_cast<int>(N));
}
template <unsigned N, unsigned B>
inline uint64_t rotr_units(uint64_t x) noexcept {
  static_assert(N % 16 == 0 && N < 64 && B % 4 == 0 && B < 16);
  if constexpr (B == 0) {
    return rotr<N>(x);
  } else {
    // Rotating units right by B is (x >> B) on the low 16 - B bits of each unit plus (x << 16 - B)
    // on the rest; both masks are 16-periodic, so the lane rotation by N folds into the shifts.
    return (rotr<(N + B) % 64>(x) & unit_low_mask(B)) | (rotr<N + B - 16>(x) & ~unit_low_mask(B));
  }
}

// Two uint64_t lanes: the portable twin of V128.
struct Pair {
  uint64_t l0, l1;
};
inline Pair operator^(Pair a, Pair b) noexcept { return {a.l0 ^ b.l0, a.l1 ^ b.l1}; }
inline Pair operator&(Pair a, Pair b) noexcept { return {a.l0 & b.l0, a.l1 & b.l1}; }
inline Pair operator|(Pair a, Pair b) noexcept { return {a.l0 | b.l0, a.l1 | b.l1}; }
template <unsigned N>
inline Pair shl(Pair x) noexcept {
  return {x.l0 << N, x.l1 << N};
}
template <unsigned N>
inline Pair shr(Pair x) noexcept {
  return {x.l0 >> N, x.l1 >> N};
}
template <unsigned N>
inline Pair rotr(Pair x) noexcept {
  return {rotr<N>(x.l0), rotr<N>(x.l1)};
}
template <unsigned N, unsigned B>
inline Pair rotr_units(Pair x) noexcept {
  return {rotr_units<N, B>(x.l0), rotr_units<N, B>(x.l1)};
}

#if defined(__wasm_simd128__)
// wasm v128 as two 64-bit lanes. Only shuffles V8 turns into one or two x64 instructions without a
// mask constant (pshufd; pshuflw + pshufhw) are used; unit rotations use 16-bit shifts.
struct V128 {
  v128_t v;
};
inline V128 operator^(V128 a, V128 b) noexcept { return {wasm_v128_xor(a.v, b.v)}; }
inline V128 operator&(V128 a, V128 b) noexcept { return {wasm_v128_and(a.v, b.v)}; }
inline V128 operator|(V128 a, V128 b) noexcept { return {wasm_v128_or(a.v, b.v)}; }
template <unsigned N>
inline V128 shl(V128 x) noexcept {
  return {wasm_i64x2_shl(x.v, N)};
}
template <unsigned N>
inline V128 shr(V128 x) noexcept {
  return {wasm_u64x2_shr(x.v, N)};
}
template <unsigned N>
inline V128 rotr(V128 x) noexcept {
  if constexpr (N == 16) {  // 16-bit unit m of each lane takes unit m + 1 (mod 4)
    return {wasm_i16x8_shuffle(x.v, x.v, 1, 2, 3, 0, 5, 6, 7, 4)};
  } else {
    static_assert(N == 32);  // the two 32-bit halves of each lane swap
    return {wasm_i32x4_shuffle(x.v, x.v, 1, 0, 3, 2)};
  }
}
template <unsigned N, unsigned B>
inline V128 rotr_units(V128 x) noexcept {
  static_assert(B % 4 == 0 && B < 16);
  if constexpr (B == 0) {
    return rotr<N>(x);
  } else {
    return rotr<N>(V128{wasm_v128_or(wasm_u16x8_shr(x.v, B), wasm_i16x8_shl(x.v, 16 - B))});
  }
}
#endif

// Lanes per word, and so 4 * kLanes<W> blocks per batch.
template <class W>
inline constexpr size_t kLanes = 1;
template <>
inline constexpr size_t kLanes<Pair> = 2;
#if defined(__wasm_simd128__)
template <>
inline constexpr size_t kLanes<V128> = 2;
#endif

template <class W>
inline constexpr size_t kBatchBlocks = 4 * kLanes<W>;

// `x` in every lane.
template <class W>
W broadcast(uint64_t x) noexcept;
template <>
inline uint64_t broadcast<uint64_t>(uint64_t x) noexcept {
  return x;
}
template <>
inline Pair broadcast<Pair>(uint64_t x) noexcept {
  return {x, x};
}
#if defined(__wasm_simd128__)
template <>
inline V128 broadcast<V128>(uint64_t x) noexcept {
  return {wasm_i64x2_splat(static_cast<int64_t>(x))};
}
#endif

// *p in every lane. For V128 a single load64_splat (left to itself, clang loads both words of a
// pair and shuffles).
template <class W>
inline W load_broadcast(const uint64_t* p) noexcept {
  return broadcast<W>(*p);
}
#if defined(__wasm_simd128__)
template <>
inline V128 load_broadcast<V128>(const uint64_t* p) noexcept {
  return {wasm_v128_load64_splat(p)};
}
#endif

// Calls f(std::integral_constant<int, i>{}) for i = 0 .. N-1: straight-line code with constant
// plane indices whatever the optimizer's unrolling heuristics, so planes stay in registers (a loop
// over an array of planes may keep them in memory). The lambdas passed in are forced inline too.
template <class F, int... I>
WACORE_AES_INLINE void unrolled_impl(F& f, std::integer_sequence<int, I...>) noexcept {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
WACORE_AES_INLINE void unrolled(F&& f) noexcept {
  unrolled_impl(f, std::make_integer_sequence<int, N>{});
}

// -------------------------------------------------------------------------------------------------
// From blocks to bit planes and back.
//
// Step 1 (per word type, "prepared" words): word i = 4p + k of a lane holds the 8 bytes of block k
// in the columns of parity p, interleaved as rows: byte j = 2r + h is state byte (r, c = 2h + p).
// Step 2 (transpose): an 8x8 bit transpose in every byte position j turns "bit b of byte j of word
// i" into "bit 8j + i of plane b"; with i and j as above, 8j + i = 16r + 4c + k, the layout.

// Exchanges bits of `x` at positions in `mask` with those S places higher.
template <unsigned S, class W>
WACORE_AES_INLINE W delta_swap(W x, uint64_t mask) noexcept {
  const W t = (x ^ shr<S>(x)) & broadcast<W>(mask);
  return x ^ t ^ shl<S>(t);
}

// Exchanges bits of `hi` at positions mask << S with bits of `lo` at positions mask.
template <unsigned S, class W>
WACORE_AES_INLINE void exchange(W& hi, W& lo, uint64_t mask) noexcept {
  const W t = (shr<S>(hi) ^ lo) & broadcast<W>(mask);
  lo = lo ^ t;
  hi = hi ^ shl<S>(t);
}

// Transposes the 8x8 bit matrix (word i, bit b) in each of the 8 byte positions: swap the
// off-diagonal 1x1, then 2x2, then 4x4 sub-blocks. It is its own inverse.
template <class W>
WACORE_AES_INLINE void transpose(W (&w)[kPlanes]) noexcept {
  constexpr uint64_t kOdd1 = 0x5555555555555555ull;
  constexpr uint64_t kOdd2 = 0x3333333333333333ull;
  constexpr uint64_t kOdd4 = 0x0F0F0F0F0F0F0F0Full;
  exchange<1>(w[0], w[1], kOdd1);
  exchange<1>(w[2], w[3], kOdd1);
  exchange<1>(w[4], w[5], kOdd1);
  exchange<1>(w[6], w[7], kOdd1);
  exchange<2>(w[0], w[2], kOdd2);
  exchange<2>(w[1], w[3], kOdd2);
  exchange<2>(w[4], w[6], kOdd2);
  exchange<2>(w[5], w[7], kOdd2);
  exchange<4>(w[0], w[4], kOdd4);
  exchange<4>(w[1], w[5], kOdd4);
  exchange<4>(w[2], w[6], kOdd4);
  exchange<4>(w[3], w[7], kOdd4);
}

// Scalar step 1 for one block: bytes 0..7 and 8..15 as little-endian words in, the words of
// parity 0 (b0 b8 b1 b9 b2 b10 b3 b11) and parity 1 (b4 b12 b5 b13 b6 b14 b7 b15) out.
WACORE_AES_INLINE void prepare_block(const uint8_t* block, uint64_t& even, uint64_t& odd) noexcept {
  constexpr uint64_t kLow = 0x00000000FFFFFFFFull;
  uint64_t lo, hi;
  std::memcpy(&lo, block, 8);
  std::memcpy(&hi, block + 8, 8);
  uint64_t x = (lo & kLow) | (hi << 32);   // b0..b3 b8..b11
  uint64_t y = (lo >> 32) | (hi & ~kLow);  // b4..b7 b12..b15
  // [a0 a1 a2 a3 c0 c1 c2 c3] -> [a0 c0 a1 c1 a2 c2 a3 c3]: swap the middle 16-bit units, then the
  // middle bytes of each half.
  x = delta_swap<16>(x, 0x00000000FFFF0000ull);
  y = delta_swap<16>(y, 0x00000000FFFF0000ull);
  even = delta_swap<8>(x, 0x0000FF000000FF00ull);
  odd = delta_swap<8>(y, 0x0000FF000000FF00ull);
}

// Inverse of prepare_block.
WACORE_AES_INLINE void unprepare_block(uint64_t even, uint64_t odd, uint8_t* block) noexcept {
  constexpr uint64_t kLow = 0x00000000FFFFFFFFull;
  const uint64_t x =
      delta_swap<16>(delta_swap<8>(even, 0x0000FF000000FF00ull), 0x00000000FFFF0000ull);
  const uint64_t y =
      delta_swap<16>(delta_swap<8>(odd, 0x0000FF000000FF00ull), 0x00000000FFFF0000ull);
  const uint64_t lo = (x & kLow) | (y << 32);
  const uint64_t hi = (x >> 32) | (y & ~kLow);
  std::memcpy(block, &lo, 8);
  std::memcpy(block + 8, &hi, 8);
}

WACORE_AES_INLINE void load_prepared(const uint8_t* in, uint64_t (&w)[kPlanes]) noexcept {
  unrolled<4>([&](auto k) WACORE_AES_INLINE_LAMBDA {
    prepare_block(in + kBlockBytes * k, w[k], w[4 + k]);
  });
}
WACORE_AES_INLINE void store_prepared(const uint64_t (&w)[kPlanes], uint8_t* out) noexcept {
  unrolled<4>([&](auto k) WACORE_AES_INLINE_LAMBDA {
    unprepare_block(w[k], w[4 + k], out + kBlockBytes * k);
  });
}

// Lane L carries blocks 4L..4L+3.
WACORE_AES_INLINE void load_prepared(const uint8_t* in, Pair (&w)[kPlanes]) noexcept {
  unrolled<4>([&](auto k) WACORE_AES_INLINE_LAMBDA {
    prepare_block(in + kBlockBytes * k, w[k].l0, w[4 + k].l0);
    prepare_block(in + kBlockBytes * (4 + k), w[k].l1, w[4 + k].l1);
  });
}
WACORE_AES_INLINE void store_prepared(const Pair (&w)[kPlanes], uint8_t* out) noexcept {
  unrolled<4>([&](auto k) WACORE_AES_INLINE_LAMBDA {
    unprepare_block(w[k].l0, w[4 + k].l0, out + kBlockBytes * k);
    unprepare_block(w[k].l1, w[4 + k].l1, out + kBlockBytes * (4 + k));
  });
}

#if defined(__wasm_simd128__)
// The same words as the scalar step 1, one shuffle each: lane 0 from block k, lane 1 from block
// k+4.
WACORE_AES_INLINE void load_prepared(const uint8_t* in, V128 (&w)[kPlanes]) noexcept {
  unrolled<4>([&](auto k) WACORE_AES_INLINE_LAMBDA {
    const v128_t a = wasm_v128_load(in + kBlockBytes * k);
    const v128_t b = wasm_v128_load(in + kBlockBytes * (4 + k));
    w[k].v = wasm_i8x16_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11, 16, 24, 17, 25, 18, 26, 19, 27);
    w[4 + k].v =
        wasm_i8x16_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15, 20, 28, 21, 29, 22, 30, 23, 31);
  });
}
WACORE_AES_INLINE void store_prepared(const V128 (&w)[kPlanes], uint8_t* out) noexcept {
  unrolled<4>([&](auto k) WACORE_AES_INLINE_LAMBDA {
    const v128_t x = w[k].v, y = w[4 + k].v;
    wasm_v128_store(
        out + kBlockBytes * k,  // block k: lane 0 of x and y
        wasm_i8x16_shuffle(x, y, 0, 2, 4, 6, 16, 18, 20, 22, 1, 3, 5, 7, 17, 19, 21, 23));
    wasm_v128_store(
        out + kBlockBytes * (4 + k),  // block k + 4: lane 1
        wasm_i8x16_shuffle(x, y, 8, 10, 12, 14, 24, 26, 28, 30, 9, 11, 13, 15, 25, 27, 29, 31));
  });
}
#endif

// kBatchBlocks<W> blocks at `in` into bit planes.
template <class W>
WACORE_AES_INLINE void load_state(const uint8_t* in, W (&q)[kPlanes]) noexcept {
  load_prepared(in, q);
  transpose(q);
}

// Bit planes back into kBatchBlocks<W> blocks at `out`; q is left transposed (callers discard it).
template <class W>
WACORE_AES_INLINE void store_state(W (&q)[kPlanes], uint8_t* out) noexcept {
  transpose(q);
  store_prepared(q, out);
}

// -------------------------------------------------------------------------------------------------
// S-boxes. Input bit U0 is the most significant bit of a byte (plane 7), as in the published
// listings; likewise the outputs S0 and W0.

// S(x) ^ 0x63 on every byte: the forward circuit without its 4 output XNORs.
template <class W>
WACORE_AES_INLINE void sbox(W (&q)[kPlanes]) noexcept {
  const W U0 = q[7], U1 = q[6], U2 = q[5], U3 = q[4], U4 = q[3], U5 = q[2], U6 = q[1], U7 = q[0];
  // Top linear layer.
  const W t1 = U3 ^ U5;
  const W t2 = U0 ^ U6;
  const W t3 = U0 ^ U3;
  const W t4 = U0 ^ U5;
  const W t5 = U1 ^ U2;
  const W t6 = t5 ^ U7;
  const W t7 = t6 ^ U3;
  const W t8 = t2 ^ t1;
  const W t9 = t6 ^ U0;
  const W t10 = t6 ^ U6;
  const W t11 = t10 ^ t4;
  const W t12 = U4 ^ t8;
  const W t13 = t12 ^ U5;
  const W t14 = t12 ^ U1;
  const W t15 = t13 ^ U7;
  const W t16 = t13 ^ t5;
  const W t17 = t14 ^ t3;
  const W t18 = U7 ^ t17;
  const W t19 = t16 ^ t17;
  const W t20 = t16 ^ t4;
  const W t21 = t5 ^ t17;
  const W t22 = t2 ^ t21;
  const W t23 = U0 ^ t21;
  // Middle, non-linear: inversion in GF(2^8) through a tower of subfields.
  const W t24 = t8 & t13;
  const W t25 = t11 & t15;
  const W t26 = t25 ^ t24;
  const W t27 = t7 & U7;
  const W t28 = t27 ^ t24;
  const W t29 = t2 & t21;
  const W t30 = t10 & t6;
  const W t31 = t30 ^ t29;
  const W t32 = t9 & t18;
  const W t33 = t32 ^ t29;
  const W t34 = t3 & t17;
  const W t35 = t1 & t19;
  const W t36 = t35 ^ t34;
  const W t37 = t4 & t16;
  const W t38 = t37 ^ t34;
  const W t39 = t26 ^ t14;
  const W t40 = t28 ^ t38;
  const W t41 = t31 ^ t36;
  const W t42 = t33 ^ t38;
  const W t43 = t39 ^ t36;
  const W t44 = t40 ^ t20;
  const W t45 = t41 ^ t22;
  const W t46 = t42 ^ t23;
  const W t47 = t43 ^ t44;
  const W t48 = t43 & t45;
  const W t49 = t46 ^ t48;
  const W t50 = t47 & t49;
  const W t51 = t50 ^ t44;
  const W t52 = t45 ^ t46;
  const W t53 = t44 ^ t48;
  const W t54 = t53 & t52;
  const W t55 = t54 ^ t46;
  const W t56 = t45 ^ t55;
  const W t57 = t49 ^ t55;
  const W t58 = t46 & t57;
  const W t59 = t58 ^ t56;
  const W t60 = t49 ^ t58;
  const W t61 = t51 & t60;
  const W t62 = t47 ^ t61;
  const W t63 = t62 ^ t59;
  const W t64 = t51 ^ t55;
  const W t65 = t51 ^ t62;
  const W t66 = t55 ^ t59;
  const W t67 = t64 ^ t63;
  const W t68 = t66 & t13;
  const W t69 = t59 & t15;
  const W t70 = t55 & U7;
  const W t71 = t65 & t21;
  const W t72 = t62 & t6;
  const W t73 = t51 & t18;
  const W t74 = t64 & t17;
  const W t75 = t67 & t19;
  const W t76 = t63 & t16;
  const W t77 = t66 & t8;
  const W t78 = t59 & t11;
  const W t79 = t55 & t7;
  const W t80 = t65 & t2;
  const W t81 = t62 & t10;
  const W t82 = t51 & t9;
  const W t83 = t64 & t3;
  const W t84 = t67 & t1;
  const W t85 = t63 & t4;
  // Bottom linear layer (S1, S2, S6, S7 lose their NOT: 0x63 lives in the round keys).
  const W t86 = t83 ^ t84;
  const W t87 = t78 ^ t86;
  const W t88 = t77 ^ t87;
  const W t89 = t68 ^ t70;
  const W t90 = t69 ^ t68;
  const W t91 = t71 ^ t72;
  const W t92 = t80 ^ t89;
  const W t93 = t75 ^ t91;
  const W t94 = t76 ^ t92;
  const W t95 = t93 ^ t94;
  const W t96 = t91 ^ t90;
  const W t97 = t71 ^ t73;
  const W t98 = t81 ^ t86;
  const W t99 = t89 ^ t97;
  const W S3 = t88 ^ t96;
  const W t100 = t74 ^ t93;
  const W t101 = t82 ^ t95;
  const W t102 = t98 ^ t99;
  const W S7 = t80 ^ t102;
  const W t103 = t83 ^ t100;
  const W t104 = t87 ^ t79;
  const W S0 = t88 ^ t100;
  const W S6 = t95 ^ t102;
  const W S4 = t99 ^ S3;
  const W S1 = S3 ^ t100;
  const W t105 = t101 ^ t103;
  const W S2 = t105 ^ t85;
  const W S5 = t104 ^ t101;
  q[7] = S0, q[6] = S1, q[5] = S2, q[4] = S3, q[3] = S4, q[2] = S5, q[1] = S6, q[0] = S7;
}

// InvS(x ^ 0x63) on every byte: the inverse circuit with its 10 XNORs (all in the top linear layer)
// turned into XORs.
template <class W>
WACORE_AES_INLINE void inv_sbox(W (&q)[kPlanes]) noexcept {
  const W U0 = q[7], U1 = q[6], U2 = q[5], U3 = q[4], U4 = q[3], U5 = q[2], U6 = q[1], U7 = q[0];
  // Top linear layer.
  const W t1 = U0 ^ U3;
  const W t2 = U1 ^ U3;
  const W t3 = U0 ^ U1;
  const W t4 = U3 ^ U4;
  const W t5 = U4 ^ U7;
  const W t6 = U6 ^ U7;
  const W t7 = U1 ^ t1;
  const W t8 = t2 ^ t6;
  const W t9 = U7 ^ t4;
  const W t10 = t3 ^ t5;
  const W t11 = t3 ^ t6;
  const W t12 = t4 ^ t6;
  const W t13 = U2 ^ t4;
  const W t14 = U1 ^ U6;
  const W t15 = U2 ^ t8;
  const W t16 = t5 ^ t14;
  const W t17 = U4 ^ t7;
  const W t18 = U2 ^ U5;
  const W t19 = U5 ^ U6;
  const W t20 = U2 ^ U4;
  const W t21 = U0 ^ t18;
  const W t22 = t2 ^ t18;
  const W t23 = t14 ^ t20;
  const W t24 = t4 ^ t19;
  const W t25 = t10 ^ t24;
  const W t26 = t10 ^ t19;
  const W t27 = t12 ^ t23;
  // Middle, non-linear (shared in structure with the forward depth-16 circuit).
  const W t28 = t11 & t22;
  const W t29 = t1 & t7;
  const W t30 = t26 ^ t28;
  const W t31 = t8 & t21;
  const W t32 = t31 ^ t28;
  const W t33 = t12 & t23;
  const W t34 = t2 & t9;
  const W t35 = t27 ^ t33;
  const W t36 = t16 & t15;
  const W t37 = t36 ^ t33;
  const W t38 = t4 & t25;
  const W t39 = t17 & t24;
  const W t40 = t39 ^ t38;
  const W t41 = t3 & t10;
  const W t42 = t41 ^ t38;
  const W t43 = t30 ^ t29;
  const W t44 = t32 ^ t5;
  const W t45 = t35 ^ t34;
  const W t46 = t37 ^ t42;
  const W t47 = t43 ^ t40;
  const W t48 = t44 ^ t42;
  const W t49 = t45 ^ t40;
  const W t50 = t46 ^ t13;
  const W t51 = t49 ^ t50;
  const W t52 = t49 & t47;
  const W t53 = t48 ^ t52;
  const W t54 = t47 ^ t48;
  const W t55 = t50 ^ t52;
  const W t56 = t55 & t54;
  const W t57 = t53 & t51;
  const W t58 = t47 & t50;
  const W t59 = t54 & t58;
  const W t60 = t54 ^ t52;
  const W t61 = t48 & t49;
  const W t62 = t51 & t61;
  const W t63 = t51 ^ t52;
  const W t64 = t48 ^ t56;
  const W t65 = t59 ^ t60;
  const W t66 = t50 ^ t57;
  const W t67 = t62 ^ t63;
  const W t68 = t65 ^ t67;
  const W t69 = t64 ^ t66;
  const W t70 = t64 ^ t65;
  const W t71 = t66 ^ t67;
  const W t72 = t69 ^ t68;
  const W t73 = t71 & t22;
  const W t74 = t67 & t7;
  const W t75 = t66 & t21;
  const W t76 = t70 & t23;
  const W t77 = t65 & t9;
  const W t78 = t64 & t15;
  const W t79 = t69 & t25;
  const W t80 = t72 & t24;
  const W t81 = t68 & t10;
  const W t82 = t71 & t11;
  const W t83 = t67 & t1;
  const W t84 = t66 & t8;
  const W t85 = t70 & t12;
  const W t86 = t65 & t2;
  const W t87 = t64 & t16;
  const W t88 = t69 & t4;
  const W t89 = t72 & t17;
  const W t90 = t68 & t3;
  // Bottom linear layer.
  const W t91 = t79 ^ t88;
  const W t92 = t85 ^ t86;
  const W t93 = t81 ^ t89;
  const W t94 = t74 ^ t77;
  const W t95 = t75 ^ t83;
  const W t96 = t73 ^ t78;
  const W t97 = t76 ^ t87;
  const W t98 = t91 ^ t92;
  const W t99 = t77 ^ t80;
  const W t100 = t82 ^ t90;
  const W t101 = t84 ^ t95;
  const W t102 = t91 ^ t94;
  const W t103 = t73 ^ t75;
  const W t104 = t76 ^ t78;
  const W t105 = t76 ^ t89;
  const W t106 = t81 ^ t86;
  const W t107 = t84 ^ t88;
  const W t108 = t85 ^ t93;
  const W t109 = t90 ^ t96;
  const W t110 = t93 ^ t94;
  const W t111 = t95 ^ t97;
  const W t112 = t93 ^ t98;
  const W t113 = t98 ^ t99;
  const W t114 = t96 ^ t98;
  const W t115 = t97 ^ t101;
  const W t116 = t100 ^ t102;
  const W t117 = t101 ^ t109;
  const W t118 = t102 ^ t115;
  const W t119 = t106 ^ t111;
  q[7] = t104 ^ t112;  // W0
  q[6] = t116 ^ t119;  // W1
  q[5] = t108 ^ t118;  // W2
  q[4] = t103 ^ t112;  // W3
  q[3] = t113 ^ t117;  // W4
  q[2] = t110 ^ t114;  // W5
  q[1] = t105 ^ t113;  // W6
  q[0] = t100 ^ t107;  // W7
}

// Adds 0x63 to every byte: all-ones into the planes of its set bits (0, 1, 5 and 6).
template <class W>
WACORE_AES_INLINE void add_sbox_constant(W (&q)[kPlanes]) noexcept {
  const W ones = broadcast<W>(~uint64_t{0});
  q[0] = q[0] ^ ones;
  q[1] = q[1] ^ ones;
  q[5] = q[5] ^ ones;
  q[6] = q[6] ^ ones;
}

// -------------------------------------------------------------------------------------------------
// Linear layer.

// For MixColumns variant J (state held as SR^-J of the true state): the byte m rows down and m*J
// columns along, brought to each position, for m = 1 and m = 2. A column is a nibble of a 16-bit
// row chunk, so moving J columns is a rotation of the chunks by 4J bits.
template <unsigned J, class W>
WACORE_AES_INLINE W next_row(W x) noexcept {
  return rotr_units<16, (4 * J) % 16>(x);
}
template <unsigned J, class W>
WACORE_AES_INLINE W row_after_next(W x) noexcept {
  return rotr_units<32, (8 * J) % 16>(x);
}

// MixColumns, variant J: out = 2 a + 3 b + c + d, where a is the byte and b, c, d the ones 1, 2 and
// 3 rows down along the variant's diagonal, computed as 2 (a + b) + b + (c + d) with (c + d) the
// row_after_next of (a + b). Doubling in bit planes shifts up one plane and folds plane 7 back in
// as 0x1B (planes 0, 1, 3, 4). Planes are produced one at a time, 0 to 7, so that only a few
// temporaries are live at once: fewer spills, which dominate the cost in wasm.
template <unsigned J, class W>
WACORE_AES_INLINE void mix_columns(W (&q)[kPlanes]) noexcept {
  const W b7 = next_row<J>(q[7]);
  const W s7 = q[7] ^ b7;  // the top plane of a + b, folded into planes 0, 1, 3 and 4
  W prev = s7;             // plane i - 1 of a + b (plane 7 stands in for "i - 1" of plane 0)
  unrolled<kPlanes - 1>([&](auto i) WACORE_AES_INLINE_LAMBDA {
    const W b = next_row<J>(q[i]);
    const W s = q[i] ^ b;
    W out = prev ^ b ^ row_after_next<J>(s);
    if constexpr (i == 1 || i == 3 || i == 4) out = out ^ s7;
    q[i] = out;
    prev = s;
  });
  q[7] = prev ^ b7 ^ row_after_next<J>(s7);
}

// InvMixColumns, variant J. The inverse matrix circ(0e, 0b, 0d, 09) equals circ(02, 03, 01, 01)
// times circ(05, 00, 04, 00), so first a += 4 (a + c) with c two rows down, then MixColumns. With
// u = a + c, 4u in planes: x^8 = x^4 + x^3 + x + 1 and x^9 = x^5 + x^4 + x^2 + x, so plane i gets
// u[i - 2] plus u6 in planes 0, 1, 3, 4 and u7 in planes 1, 2, 4, 5.
template <unsigned J, class W>
WACORE_AES_INLINE void inv_mix_columns(W (&q)[kPlanes]) noexcept {
  const W u6 = q[6] ^ row_after_next<J>(q[6]);
  const W u7 = q[7] ^ row_after_next<J>(q[7]);
  const W u5 = q[5] ^ row_after_next<J>(q[5]);
  q[7] = q[7] ^ u5;
  q[6] = q[6] ^ q[4] ^ row_after_next<J>(q[4]);
  q[5] = q[5] ^ q[3] ^ row_after_next<J>(q[3]) ^ u7;
  q[4] = q[4] ^ q[2] ^ row_after_next<J>(q[2]) ^ u6 ^ u7;
  q[3] = q[3] ^ q[1] ^ row_after_next<J>(q[1]) ^ u6;
  q[2] = q[2] ^ q[0] ^ row_after_next<J>(q[0]) ^ u7;
  q[1] = q[1] ^ u6 ^ u7;
  q[0] = q[0] ^ u6;
  mix_columns<J>(q);
}

// ShiftRows twice (its own inverse): rows 1 and 3 move by two columns, a byte swap in their chunks.
template <class W>
WACORE_AES_INLINE void shift_rows_twice(W (&q)[kPlanes]) noexcept {
  unrolled<kPlanes>([&](auto i) WACORE_AES_INLINE_LAMBDA {
    q[i] = delta_swap<8>(q[i], 0x00FF000000FF0000ull);
  });
}

template <class W>
WACORE_AES_INLINE void add_round_key(W (&q)[kPlanes], const uint64_t (&rk)[kPlanes]) noexcept {
  unrolled<kPlanes>([&](auto i) WACORE_AES_INLINE_LAMBDA {
    q[i] = q[i] ^ load_broadcast<W>(&rk[i]);
  });
}

// -------------------------------------------------------------------------------------------------
// Rounds. Round r uses MixColumns variant r mod 4 in both directions (see the top of this file).

template <unsigned J, class W>
WACORE_AES_INLINE void encrypt_round(W (&q)[kPlanes], const uint64_t (&rk)[kPlanes]) noexcept {
  sbox(q);
  mix_columns<J>(q);
  add_round_key(q, rk);
}

template <unsigned J, class W>
WACORE_AES_INLINE void decrypt_round(W (&q)[kPlanes], const uint64_t (&rk)[kPlanes]) noexcept {
  inv_sbox(q);
  add_round_key(q, rk);
  inv_mix_columns<J>(q);
}

static_assert(kRounds == 14, "the round sequences below are unrolled for AES-256");

template <class W>
WACORE_AES_INLINE void encrypt_state(const Key& k, W (&q)[kPlanes]) noexcept {
  add_round_key(q, k.rk[0]);
  for (int r = 1; r < 13; r += 4) {  // rounds 1..12
    encrypt_round<1>(q, k.rk[r]);
    encrypt_round<2>(q, k.rk[r + 1]);
    encrypt_round<3>(q, k.rk[r + 2]);
    encrypt_round<0>(q, k.rk[r + 3]);
  }
  encrypt_round<1>(q, k.rk[13]);
  sbox(q);  // round 14: no MixColumns
  add_round_key(q, k.rk[14]);
  shift_rows_twice(q);  // from SR^-2 order back to natural order
}

template <class W>
WACORE_AES_INLINE void decrypt_state(const Key& k, W (&q)[kPlanes]) noexcept {
  shift_rows_twice(q);  // into the order round 14's key was stored in
  add_round_key(q, k.rk[14]);
  decrypt_round<1>(q, k.rk[13]);
  for (int r = 12; r > 0; r -= 4) {  // rounds 12..1
    decrypt_round<0>(q, k.rk[r]);
    decrypt_round<3>(q, k.rk[r - 1]);
    decrypt_round<2>(q, k.rk[r - 2]);
    decrypt_round<1>(q, k.rk[r - 3]);
  }
  inv_sbox(q);
  add_round_key(q, k.rk[0]);
}

}  // namespace wacore::aes::bitslice
