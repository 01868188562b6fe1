#include "crypto/ed25519_base.h"

#include "common/unroll.h"
#include "crypto/fe_invert.h"

#include <sodium.h>

#include <cstring>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace wacore::curve {
namespace {

using Affine = AffinePoint;

// kTable[i][j] = (j + 1)·256^i·B: the scalar is written in 64 signed radix-16 digits, and digit k
// (in [-8, 8]) picks entry |digit| - 1 of row k / 2, the odd digits before four doublings and the
// even ones after.
constexpr int kRows = 32;
constexpr int kMultiples = 8;
Affine g_table[kRows][kMultiples];
bool g_table_ready = false;
// The neutral element in affine form, (1, 1, 0): what a digit 0 selects.
Affine g_neutral;

// An affine point as select reads and writes it: 64-bit words (through memcpy: the field elements
// are arrays of 32-bit limbs).
constexpr int kAffineWords = sizeof(Affine) / sizeof(uint64_t);
static_assert(sizeof(Affine) == kAffineWords * sizeof(uint64_t), "an affine point is whole 64-bit words");

// The encoding of B: y = 4/5, x even.
constexpr uint8_t kBasePoint[32] = {0x58, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                                    0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                                    0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66};

void small(fe25519 out, uint32_t v) {
  uint8_t bytes[32] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16)};
  fe25519_frombytes(out, bytes);
}

// Field elements with the limbs fe25519_frombytes gives (fully carried), whatever sums made them.
void settle(fe25519 f) {
  uint8_t bytes[32];
  fe25519_tobytes(bytes, f);
  fe25519_frombytes(f, bytes);
}

// h = 2h (extended coordinates, Hisil-Wong-Carter-Dawson 2008 doubling, a = -1), both fractions of
// the completed result negated: with A = X², B = Y², C = 2Z², it is
// (A + B - (X + Y)² : A + B) over (A - B : A - B + C).
void dbl(ge25519_p1p1& r, const fe25519 x, const fe25519 y, const fe25519 z) {
  fe25519 a, b, c, e;
  fe25519_sq(a, x);
  fe25519_sq(b, y);
  fe25519_sq2(c, z);
  fe25519_add(e, x, y);
  fe25519_sq(e, e);
  fe25519_add(r.Y, a, b);
  fe25519_sub(r.X, r.Y, e);
  fe25519_sub(r.Z, a, b);
  fe25519_add(r.T, r.Z, c);
}

void dbl(ge25519_p3& h) {
  ge25519_p1p1 r;
  dbl(r, h.X, h.Y, h.Z);
  ge25519_p1p1_to_p3(&h, &r);
}

void add(ge25519_p3& r, const ge25519_p3& p, const ge25519_p3& q) {
  ge25519_cached c;
  ge25519_p1p1 sum;
  ge25519_p3_to_cached(&c, &q);
  ge25519_add(&sum, &p, &c);
  ge25519_p1p1_to_p3(&r, &sum);
}

// Affine forms of n points with one inversion (Montgomery's trick: prefix products of the Z's).
void to_affine(Affine* out, const ge25519_p3* points, fe25519* prefix, int n) {
  fe25519_copy(prefix[0], points[0].Z);
  for (int i = 1; i < n; i++) fe25519_mul(prefix[i], prefix[i - 1], points[i].Z);
  fe25519 inv, inv_z, x, y, d2, t;
  invert(inv, prefix[n - 1]);
  // d = -121665/121666, and 2d.
  small(t, 121666);
  invert(t, t);
  small(d2, 121665);
  fe25519_mul(d2, d2, t);
  fe25519_neg(d2, d2);
  fe25519_add(d2, d2, d2);
  for (int i = n - 1; i >= 0; i--) {
    if (i > 0) {
      fe25519_mul(inv_z, inv, prefix[i - 1]);
      fe25519_mul(inv, inv, points[i].Z);
    } else {
      fe25519_copy(inv_z, inv);
    }
    fe25519_mul(x, points[i].X, inv_z);
    fe25519_mul(y, points[i].Y, inv_z);
    Affine& e = out[i];
    fe25519_add(e.y_plus_x, y, x);
    fe25519_sub(e.y_minus_x, y, x);
    fe25519_mul(t, x, y);
    fe25519_mul(e.xy_2d, t, d2);
    settle(e.y_plus_x);
    settle(e.y_minus_x);
    settle(e.xy_2d);
  }
}

// The table from B alone: 224 additions, 248 doublings and one batched inversion for the affine
// forms. Public data; well under a millisecond, once.
void build_table() {
  static ge25519_p3 points[kRows * kMultiples];
  static fe25519 prefix[kRows * kMultiples];
  ge25519_p3 row;
  ge25519_frombytes(&row, kBasePoint);
  for (int i = 0; i < kRows; i++) {
    points[i * kMultiples] = row;
    for (int j = 1; j < kMultiples; j++) add(points[i * kMultiples + j], points[i * kMultiples + j - 1], row);
    for (int k = 0; k < 8; k++) dbl(row);  // 256·row
  }
  to_affine(&g_table[0][0], points, prefix, kRows * kMultiples);
  fe25519_1(g_neutral.y_plus_x);
  fe25519_1(g_neutral.y_minus_x);
  fe25519_0(g_neutral.xy_2d);
  g_table_ready = true;
}

// B, 3B, 5B, ..., 127B for the width-8 NAF of verification.
constexpr int kOddB = 64;
Affine g_odd_b[kOddB];
bool g_odd_b_ready = false;

void build_odd_b() {
  static ge25519_p3 points[kOddB];
  static fe25519 prefix[kOddB];
  ge25519_p3 two_b;
  ge25519_frombytes(&points[0], kBasePoint);
  two_b = points[0];
  dbl(two_b);
  for (int i = 1; i < kOddB; i++) add(points[i], points[i - 1], two_b);
  to_affine(g_odd_b, points, prefix, kOddB);
  g_odd_b_ready = true;
}

// 1 when b == c, else 0, without a branch (b, c in [0, 8]).
unsigned equal(unsigned b, unsigned c) { return ((b ^ c) - 1U) >> 31; }

// out = digit·256^row·B for digit in [-8, 8], reading every entry of the row whatever the digit:
// each word of out is the OR of that word of every entry (and of the neutral element's, for digit
// 0) ANDed with the entry's mask, all ones for the wanted entry and zero for the others. The nine
// masks stay in registers (the loop over entries is unrolled), one 64-bit word or one 128-bit
// vector at a time: an AND and an OR per word, where a conditional move per limb took about twice
// the instructions.
void select(Affine& out, int row, signed char digit) {
  const unsigned negative = static_cast<unsigned char>(digit) >> 7;
  const unsigned magnitude = static_cast<unsigned>(digit - ((-static_cast<int>(negative) & digit) * 2));
  uint64_t take[kMultiples + 1];
  const unsigned char* from[kMultiples + 1];
  WACORE_UNROLL_ALL
  for (int j = 0; j <= kMultiples; j++) {
    take[j] = 0 - static_cast<uint64_t>(equal(magnitude, static_cast<unsigned>(j)));
    from[j] = reinterpret_cast<const unsigned char*>(j == 0 ? &g_neutral : &g_table[row][j - 1]);
  }
  unsigned char* to = reinterpret_cast<unsigned char*>(&out);
#if defined(__wasm_simd128__)
  v128_t mask[kMultiples + 1];
  WACORE_UNROLL_ALL
  for (int j = 0; j <= kMultiples; j++) mask[j] = wasm_i64x2_splat(static_cast<int64_t>(take[j]));
  constexpr int kVectors = sizeof(Affine) / 16;
  WACORE_UNROLL_NONE
  for (int v = 0; v < kVectors; v++) {
    v128_t acc = wasm_i64x2_splat(0);
    WACORE_UNROLL_ALL
    for (int j = 0; j <= kMultiples; j++) acc = wasm_v128_or(acc, wasm_v128_and(wasm_v128_load(from[j] + 16 * v), mask[j]));
    wasm_v128_store(to + 16 * v, acc);
  }
  constexpr int kFirstWord = kVectors * 2;
#else
  constexpr int kFirstWord = 0;
#endif
  for (int w = kFirstWord; w < kAffineWords; w++) {
    uint64_t acc = 0;
    WACORE_UNROLL_ALL
    for (int j = 0; j <= kMultiples; j++) {
      uint64_t word;
      std::memcpy(&word, from[j] + 8 * w, sizeof word);
      acc |= word & take[j];
    }
    std::memcpy(to + 8 * w, &acc, sizeof acc);
  }
  // -P = (-x, y): y + x and y - x trade places, xy·2d changes sign.
  Affine minus;
  fe25519_copy(minus.y_plus_x, out.y_minus_x);
  fe25519_copy(minus.y_minus_x, out.y_plus_x);
  fe25519_neg(minus.xy_2d, out.xy_2d);
  fe25519_cmov(out.y_plus_x, minus.y_plus_x, negative);
  fe25519_cmov(out.y_minus_x, minus.y_minus_x, negative);
  fe25519_cmov(out.xy_2d, minus.xy_2d, negative);
}

// h + q, q affine (extended coordinates, Hisil-Wong-Carter-Dawson 2008 mixed addition, a = -1):
// A = (Y+X)(y+x), B = (Y-X)(y-x), C = T·2dxy, D = 2Z; the sum is (A-B : A+B : D+C : D-C) completed.
void mixed_add(ge25519_p1p1& r, const ge25519_p3& h, const Affine& q) {
  fe25519 d;
  fe25519_add(r.X, h.Y, h.X);
  fe25519_sub(r.Y, h.Y, h.X);
  fe25519_mul(r.Z, r.X, q.y_plus_x);   // A
  fe25519_mul(r.Y, r.Y, q.y_minus_x);  // B
  fe25519_mul(r.T, q.xy_2d, h.T);      // C
  fe25519_add(d, h.Z, h.Z);            // D
  fe25519_sub(r.X, r.Z, r.Y);          // A - B
  fe25519_add(r.Y, r.Z, r.Y);          // A + B
  fe25519_add(r.Z, d, r.T);            // D + C
  fe25519_sub(r.T, d, r.T);            // D - C
}

void mixed_add(ge25519_p3& h, const Affine& q) {
  ge25519_p1p1 r;
  mixed_add(r, h, q);
  ge25519_p1p1_to_p3(&h, &r);
}

}  // namespace

void base_mult(ge25519_p3* h, const uint8_t a[32]) noexcept {
  if (!g_table_ready) build_table();
  // 64 radix-16 digits, then recentred into [-8, 8] (the top digit stays below 8 as a < 2^255).
  signed char e[64];
  for (int i = 0; i < 32; i++) {
    e[2 * i] = static_cast<signed char>(a[i] & 15);
    e[2 * i + 1] = static_cast<signed char>(a[i] >> 4);
  }
  signed char carry = 0;
  for (int i = 0; i < 63; i++) {
    e[i] = static_cast<signed char>(e[i] + carry);
    carry = static_cast<signed char>((e[i] + 8) >> 4);
    e[i] = static_cast<signed char>(e[i] - carry * 16);
  }
  e[63] = static_cast<signed char>(e[63] + carry);

  fe25519_0(h->X);
  fe25519_1(h->Y);
  fe25519_1(h->Z);
  fe25519_0(h->T);
  Affine t;
  for (int i = 1; i < 64; i += 2) {
    select(t, i / 2, e[i]);
    mixed_add(*h, t);
  }
  for (int k = 0; k < 4; k++) dbl(*h);  // ·16
  for (int i = 0; i < 64; i += 2) {
    select(t, i / 2, e[i]);
    mixed_add(*h, t);
  }
  sodium_memzero(e, sizeof e);
  sodium_memzero(&t, sizeof t);
}

void odd_multiples(OddMultiples& out, const ge25519_p3& p) noexcept {
  ge25519_p3 two_p = p, next = p;
  dbl(two_p);
  ge25519_p3_to_cached(&out.p[0], &p);
  for (int i = 1; i < 8; i++) {
    add(next, next, two_p);
    ge25519_p3_to_cached(&out.p[i], &next);
  }
}

namespace {

// The width-w NAF of a 256-bit scalar: digits odd and below 2^(w-1) in magnitude, or zero, at most one
// nonzero in any w consecutive; sum(naf[i]·2^i) = s. Variable time (public scalars only).
void naf(int8_t out[257], const uint8_t s[32], int w) {
  uint32_t k[9] = {};  // s, with one spare word for the carries of negative digits
  for (int i = 0; i < 32; i++) k[i / 4] |= static_cast<uint32_t>(s[i]) << (8 * (i % 4));
  const int32_t window = 1 << w, half = window >> 1;
  for (int i = 0; i < 257; i++) {
    int32_t digit = 0;
    if (k[0] & 1) {
      digit = static_cast<int32_t>(k[0] & static_cast<uint32_t>(window - 1));
      if (digit >= half) digit -= window;
      // k -= digit: subtract a small positive, or add a small positive, with carries.
      uint64_t carry = 0;
      if (digit > 0) {
        uint64_t borrow = static_cast<uint32_t>(digit);
        for (uint32_t& word : k) {
          const uint64_t v = static_cast<uint64_t>(word) - borrow;
          word = static_cast<uint32_t>(v);
          borrow = v >> 63;
        }
      } else {
        carry = static_cast<uint32_t>(-digit);
        for (uint32_t& word : k) {
          const uint64_t v = static_cast<uint64_t>(word) + carry;
          word = static_cast<uint32_t>(v);
          carry = v >> 32;
        }
      }
    }
    out[i] = static_cast<int8_t>(digit);
    for (int j = 0; j < 8; j++) k[j] = (k[j] >> 1) | (k[j + 1] << 31);
    k[8] >>= 1;
  }
}

void negate(Affine& out, const Affine& q) {
  fe25519_copy(out.y_plus_x, q.y_minus_x);
  fe25519_copy(out.y_minus_x, q.y_plus_x);
  fe25519_neg(out.xy_2d, q.xy_2d);
}

}  // namespace

void double_mult_vartime(ge25519_p2* r, const uint8_t a[32], const OddMultiples& p, const uint8_t b[32]) noexcept {
  if (!g_odd_b_ready) build_odd_b();
  int8_t na[257], nb[257];
  naf(na, a, 5);
  naf(nb, b, 8);
  int i = 256;
  while (i >= 0 && na[i] == 0 && nb[i] == 0) i--;
  fe25519_0(r->X);
  fe25519_1(r->Y);
  fe25519_1(r->Z);
  ge25519_p1p1 t;
  ge25519_p3 u;
  Affine neg;
  for (; i >= 0; i--) {
    dbl(t, r->X, r->Y, r->Z);
    if (na[i] != 0 || nb[i] != 0) {
      if (na[i] != 0) {
        ge25519_p1p1_to_p3(&u, &t);
        if (na[i] > 0) {
          ge25519_add(&t, &u, &p.p[na[i] / 2]);
        } else {
          ge25519_sub(&t, &u, &p.p[-na[i] / 2]);
        }
      }
      if (nb[i] != 0) {
        ge25519_p1p1_to_p3(&u, &t);
        if (nb[i] > 0) {
          mixed_add(t, u, g_odd_b[nb[i] / 2]);
        } else {
          negate(neg, g_odd_b[-nb[i] / 2]);
          mixed_add(t, u, neg);
        }
      }
    }
    ge25519_p1p1_to_p2(r, &t);
  }
}

void comb_multiples(CombMultiples& out, const ge25519_p3& p) noexcept {
  constexpr int kEntries = (1 << kCombTeeth) - 1;
  static ge25519_p3 points[kEntries];  // 6 KB, off the stack (public data)
  static fe25519 prefix[kEntries];
  // The teeth 2^(51·j)·P, then every other entry as an entry with one bit fewer plus its lowest tooth.
  ge25519_p3 tooth = p;
  for (int j = 0; j < kCombTeeth; j++) {
    if (j > 0)
      for (int k = 0; k < kCombSpacing; k++) dbl(tooth);
    points[(1 << j) - 1] = tooth;
  }
  for (int i = 1; i <= kEntries; i++) {
    const int low = i & -i;
    if (i != low) add(points[i - 1], points[i - low - 1], points[low - 1]);
  }
  to_affine(out.p, points, prefix, kEntries);
}

namespace {

CombMultiples g_comb_b;
bool g_comb_b_ready = false;

// The comb index of column k: bit k + 51·j of s for each tooth j.
unsigned comb_index(const uint8_t s[32], int k) {
  unsigned index = 0;
  for (int j = 0; j < kCombTeeth; j++) {
    const int bit = k + kCombSpacing * j;
    index |= static_cast<unsigned>((s[bit >> 3] >> (bit & 7)) & 1) << j;
  }
  return index;
}

}  // namespace

void double_mult_comb(ge25519_p2* r, const uint8_t a[32], const CombMultiples& p, const uint8_t b[32]) noexcept {
  if (!g_comb_b_ready) {
    ge25519_p3 base;
    ge25519_frombytes(&base, kBasePoint);
    comb_multiples(g_comb_b, base);
    g_comb_b_ready = true;
  }
  fe25519_0(r->X);
  fe25519_1(r->Y);
  fe25519_1(r->Z);
  ge25519_p1p1 t;
  ge25519_p3 u;
  for (int k = kCombSpacing - 1; k >= 0; k--) {
    dbl(t, r->X, r->Y, r->Z);
    if (const unsigned ia = comb_index(a, k); ia != 0) {
      ge25519_p1p1_to_p3(&u, &t);
      mixed_add(t, u, p.p[ia - 1]);
    }
    if (const unsigned ib = comb_index(b, k); ib != 0) {
      ge25519_p1p1_to_p3(&u, &t);
      mixed_add(t, u, g_comb_b.p[ib - 1]);
    }
    ge25519_p1p1_to_p2(r, &t);
  }
}

}  // namespace wacore::curve
