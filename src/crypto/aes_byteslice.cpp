#include "crypto/aes_byteslice.h"

#include <sodium.h>

#include <array>
#include <cstring>

#include "common/unroll.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace wacore::aes::byteslice {
namespace {

// --- The S-box as a table, made at compile time from its definition (FIPS-197 §5.1.1) ------------

// Multiplication in GF(2^Bits) = GF(2)[x]/(Poly), Poly with its x^Bits term: the AES field (8 bits,
// x^8 + x^4 + x^3 + x + 1) and GF(16) (4 bits, x^4 + x + 1) below.
template <int Bits, unsigned Poly>
constexpr uint8_t field_mul(uint8_t a, uint8_t b) {
  uint8_t r = 0;
  for (int i = 0; i < Bits; i++) {
    if (b & 1) r ^= a;
    a = static_cast<uint8_t>(((a << 1) ^ ((a >> (Bits - 1)) & 1 ? Poly : 0)) & ((1u << Bits) - 1));
    b >>= 1;
  }
  return r;
}
constexpr uint8_t gf_mul(uint8_t a, uint8_t b) { return field_mul<8, 0x11b>(a, b); }

constexpr uint8_t rotl8(uint8_t x, int n) { return static_cast<uint8_t>(x << n | x >> (8 - n)); }

// The linear part of the S-box's affine map (its constant is 0x63).
constexpr uint8_t affine_linear(uint8_t x) { return x ^ rotl8(x, 1) ^ rotl8(x, 2) ^ rotl8(x, 3) ^ rotl8(x, 4); }

struct SboxTable {
  alignas(16) uint8_t s[256];
  constexpr SboxTable() : s{} {
    for (int x = 0; x < 256; x++) {
      // The multiplicative inverse as x^254 (0 for 0), then the affine map.
      uint8_t inv = 1, base = static_cast<uint8_t>(x);
      for (int e = 254; e != 0; e >>= 1) {
        if (e & 1) inv = gf_mul(inv, base);
        base = gf_mul(base, base);
      }
      s[x] = static_cast<uint8_t>(affine_linear(inv) ^ 0x63);
    }
  }
};
constexpr SboxTable kSbox;
static_assert(kSbox.s[0x00] == 0x63 && kSbox.s[0x01] == 0x7c && kSbox.s[0x53] == 0xed &&
              kSbox.s[0xff] == 0x16);

// Round constants x^(i-1) in GF(2^8), for schedule words 8, 16, ..., 56.
constexpr uint8_t kRcon[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40};

// --- The S-box through GF(16): nine 16-entry lookups a round instead of sixteen ------------------
//
// GF(2^8) is also GF(16)[y]/(y^2 + y + l), GF(16) = GF(2)[z]/(z^4 + z + 1): a byte i + 16k stands for
// i + k y (i, k in GF(16)). Its inverse is (j + k y)/D with j = i + k and D = i^2 + ik + l k^2. With
// a = 1/l, the two nibbles
//   io = j + 1/(1/i + a/k) = aD/(k + ai)     jo = i + 1/(1/j + a/k) = aD/(k + aj)
// need only one-nibble lookups and XORs, and their reciprocals P = 1/io, Q = 1/jo are linear in the
// inverse: (j + k y)/D = (lP + P y) + ((1 + l)Q + Q y). So the output tables (indexed by io and jo)
// hold the reciprocal, the inverse's linear pieces and the affine map at once. 1/0 is an index of 16
// or more, which i8x16.swizzle answers with 0: it passes through the XORs and reads as 1/(1/0) = 0.
// The rounds keep the state in this representation (the map between the two is a field isomorphism,
// so MixColumns' 2 and 3 carry over), the S-box constant 0x63 rides in the round keys (MixColumns
// maps a column of equal bytes to itself), and the last round's tables give the standard form back.

constexpr uint8_t gf16_mul(uint8_t a, uint8_t b) { return field_mul<4, 0x13>(a, b); }
constexpr uint8_t gf16_inv(uint8_t a) {  // a^14; 0 for 0
  const uint8_t a2 = gf16_mul(a, a), a4 = gf16_mul(a2, a2), a8 = gf16_mul(a4, a4);
  return gf16_mul(gf16_mul(a8, a4), a2);
}
constexpr uint8_t gf16_trace(uint8_t a) {
  const uint8_t a2 = gf16_mul(a, a), a4 = gf16_mul(a2, a2), a8 = gf16_mul(a4, a4);
  return a ^ a2 ^ a4 ^ a8;
}
// The first a whose l = 1/a makes y^2 + y + l irreducible over GF(16) (trace 1).
constexpr uint8_t pick_a() {
  for (uint8_t a = 2; a < 16; a++) {
    if (gf16_trace(gf16_inv(a)) == 1) return a;
  }
  return 0;
}
constexpr uint8_t kA = pick_a();
constexpr uint8_t kL = gf16_inv(kA);
static_assert(kA != 0);

constexpr uint8_t tower_mul(uint8_t x, uint8_t y) {
  const uint8_t xl = x & 15, xh = x >> 4, yl = y & 15, yh = y >> 4;
  const uint8_t hh = gf16_mul(xh, yh);
  const uint8_t lo = gf16_mul(xl, yl) ^ gf16_mul(kL, hh);
  const uint8_t hi = gf16_mul(xl, yh) ^ gf16_mul(xh, yl) ^ hh;
  return static_cast<uint8_t>(lo | hi << 4);
}
// A root b of the AES polynomial x^8 + x^4 + x^3 + x + 1 in the tower; the standard byte with bits
// c_m maps to the sum of c_m b^m.
constexpr uint8_t pick_root() {
  for (int b = 2; b < 256; b++) {
    uint8_t p[9] = {1};
    for (int m = 1; m <= 8; m++) p[m] = tower_mul(p[m - 1], static_cast<uint8_t>(b));
    if ((p[8] ^ p[4] ^ p[3] ^ p[1] ^ p[0]) == 0) return static_cast<uint8_t>(b);
  }
  return 0;
}
struct Basis {
  uint8_t to[256] = {};    // standard -> tower
  uint8_t from[256] = {};  // tower -> standard
  constexpr Basis() {
    const uint8_t root = pick_root();
    uint8_t pow[8] = {1};
    for (int m = 1; m < 8; m++) pow[m] = tower_mul(pow[m - 1], root);
    for (int v = 0; v < 256; v++) {
      uint8_t t = 0;
      for (int m = 0; m < 8; m++) t ^= (v >> m & 1) ? pow[m] : 0;
      to[v] = t;
      from[t] = static_cast<uint8_t>(v);
    }
  }
};
constexpr Basis kBasis;

constexpr uint8_t kNone = 0x80;  // 1/0: out of range for a lookup, so the next lookup gives 0
struct Table {
  alignas(16) uint8_t t[16] = {};
};
struct TowerTables {
  Table inv, a_over, to_lo, to_hi;  // 1/n and a/n (kNone for 0); the tower form of n and of 16n
  Table p1, q1, p2, q2;             // the S-box less 0x63 in the tower, parts from io and jo; then times 2
  Table p_std, q_std;               // the same parts in the standard form (the last round)
  constexpr TowerTables() {
    const uint8_t two = kBasis.to[2];
    for (uint8_t n = 0; n < 16; n++) {
      inv.t[n] = n ? gf16_inv(n) : kNone;
      a_over.t[n] = n ? gf16_mul(kA, gf16_inv(n)) : kNone;
      to_lo.t[n] = kBasis.to[n];
      to_hi.t[n] = kBasis.to[n << 4];
      const uint8_t r = gf16_inv(n);  // P or Q
      const uint8_t from_p = static_cast<uint8_t>(gf16_mul(kL, r) | r << 4);
      const uint8_t from_q = static_cast<uint8_t>((gf16_mul(kL, r) ^ r) | r << 4);
      const uint8_t sp = affine_linear(kBasis.from[from_p]), sq = affine_linear(kBasis.from[from_q]);
      p_std.t[n] = sp;
      q_std.t[n] = sq;
      p1.t[n] = kBasis.to[sp];
      q1.t[n] = kBasis.to[sq];
      p2.t[n] = tower_mul(two, p1.t[n]);
      q2.t[n] = tower_mul(two, q1.t[n]);
    }
  }
};
constexpr TowerTables kTower;
constexpr uint8_t kS63 = kBasis.to[0x63];  // the S-box constant, in the tower

// The S-box through the tower, one byte, exactly as the vector code computes it: checked against
// the table on all 256 bytes at compile time.
constexpr uint8_t look(const Table& t, uint8_t i) { return i < 16 ? t.t[i] : 0; }
struct Nibbles {
  uint8_t io, jo;
};
constexpr Nibbles invert(uint8_t w) {
  const uint8_t i = w & 15, k = w >> 4, j = i ^ k;
  const uint8_t ak = look(kTower.a_over, k);
  return {static_cast<uint8_t>(j ^ look(kTower.inv, look(kTower.inv, i) ^ ak)),
          static_cast<uint8_t>(i ^ look(kTower.inv, look(kTower.inv, j) ^ ak))};
}
constexpr bool tower_matches_sbox() {
  for (int x = 0; x < 256; x++) {
    const uint8_t w = look(kTower.to_lo, x & 15) ^ look(kTower.to_hi, x >> 4);
    if (w != kBasis.to[x] || kBasis.from[w] != x) return false;
    const Nibbles n = invert(w);
    const uint8_t s = kSbox.s[x];
    if ((look(kTower.p_std, n.io) ^ look(kTower.q_std, n.jo) ^ 0x63) != s) return false;
    if ((look(kTower.p1, n.io) ^ look(kTower.q1, n.jo) ^ kS63) != kBasis.to[s]) return false;
    if ((look(kTower.p2, n.io) ^ look(kTower.q2, n.jo)) != kBasis.to[gf_mul(2, s ^ 0x63)]) return false;
  }
  return true;
}
static_assert(tower_matches_sbox());

// --- Byte permutations of the state (byte r + 4c is row r, column c) ------------------------------

using Perm = std::array<uint8_t, kBlockBytes>;

// ShiftRows, then each column rotated up by k rows: byte i of the result is byte p[i] of the input.
// k = 0 is ShiftRows itself; 1..3 are the rotations MixColumns combines.
constexpr Perm shift_rows_then_rotate(int k) {
  Perm p{};
  for (int i = 0; i < 16; i++) {
    const int j = (i % 4 + k) % 4 + 4 * (i / 4);                     // rotation: byte j of ShiftRows' output
    p[i] = static_cast<uint8_t>(j % 4 + 4 * ((j / 4 + j % 4) % 4));  // ShiftRows: row r moves left by r
  }
  return p;
}
// Indexes for lookup(): the state permuted by ShiftRows then rotation k.
struct ShiftTables {
  alignas(16) Perm p[4];
  constexpr ShiftTables()
      : p{shift_rows_then_rotate(0), shift_rows_then_rotate(1), shift_rows_then_rotate(2), shift_rows_then_rotate(3)} {}
};
constexpr ShiftTables kShifts;
static_assert(kShifts.p[0][1] == 5 && kShifts.p[0][2] == 10 && kShifts.p[0][3] == 15 && kShifts.p[0][4] == 4);

// --- The operations, on the build's vector and on a portable 16-byte type -------------------------

struct Portable {
  uint8_t b[kBlockBytes];
};

Portable load(const uint8_t* p, Portable) {
  Portable v;
  std::memcpy(v.b, p, kBlockBytes);
  return v;
}
void store(uint8_t* p, Portable v) { std::memcpy(p, v.b, kBlockBytes); }
Portable vxor(Portable a, Portable b) {
  for (size_t i = 0; i < kBlockBytes; i++) a.b[i] ^= b.b[i];
  return a;
}
Portable splat(uint8_t x, Portable) {
  Portable v;
  std::memset(v.b, x, kBlockBytes);
  return v;
}
// Entry idx of the 16-entry table, 0 where idx >= 16 (i8x16.swizzle), reading every entry.
Portable lookup(Portable table, Portable idx) {
  Portable r;
  for (size_t i = 0; i < kBlockBytes; i++) {
    uint8_t acc = 0;
    for (uint32_t j = 0; j < kBlockBytes; j++) {
      const uint32_t d = idx.b[i] ^ j;  // 0 exactly where idx is j
      acc |= static_cast<uint8_t>(table.b[j] & ((d - 1) >> 8));
    }
    r.b[i] = acc;
  }
  return r;
}
Portable low_nibbles(Portable v) {
  for (auto& x : v.b) x &= 15;
  return v;
}
Portable high_nibbles(Portable v) {
  for (auto& x : v.b) x >>= 4;
  return v;
}

#if defined(__wasm_simd128__)
v128_t load(const uint8_t* p, v128_t) { return wasm_v128_load(p); }
void store(uint8_t* p, v128_t v) { wasm_v128_store(p, v); }
v128_t vxor(v128_t a, v128_t b) { return wasm_v128_xor(a, b); }
v128_t splat(uint8_t x, v128_t) { return wasm_i8x16_splat(static_cast<int8_t>(x)); }
v128_t lookup(v128_t table, v128_t idx) { return wasm_i8x16_swizzle(table, idx); }
v128_t low_nibbles(v128_t v) { return wasm_v128_and(v, wasm_i8x16_splat(15)); }
// A 16-bit shift and the mask: V8 builds the mask of an 8-bit shift anew at every use.
v128_t high_nibbles(v128_t v) { return wasm_v128_and(wasm_u16x8_shr(v, 4), wasm_i8x16_splat(15)); }
#endif

// --- The algorithm, once over the vector type V ---------------------------------------------------

// The tables, loaded once per call (in V8 they then stay in registers or spill slots, where a
// constant vector would be rebuilt from immediates at every use).
template <typename V>
struct Tables {
  V inv, a_over, to_lo, to_hi, p1, q1, p2, q2, p_std, q_std;
  V shift[4];  // lookup(state, shift[k]): ShiftRows, then each column rotated up by k rows
  explicit Tables(const TowerTables& t)
      : inv(load(t.inv.t, V{})),
        a_over(load(t.a_over.t, V{})),
        to_lo(load(t.to_lo.t, V{})),
        to_hi(load(t.to_hi.t, V{})),
        p1(load(t.p1.t, V{})),
        q1(load(t.q1.t, V{})),
        p2(load(t.p2.t, V{})),
        q2(load(t.q2.t, V{})),
        p_std(load(t.p_std.t, V{})),
        q_std(load(t.q_std.t, V{})),
        shift{load(kShifts.p[0].data(), V{}), load(kShifts.p[1].data(), V{}), load(kShifts.p[2].data(), V{}),
              load(kShifts.p[3].data(), V{})} {}
};

// The standard form to the tower, bytewise.
template <typename V>
V to_tower(const Tables<V>& t, V x) {
  return vxor(lookup(t.to_lo, low_nibbles(x)), lookup(t.to_hi, high_nibbles(x)));
}

// io and jo of every byte of w (tower form), as in invert() above.
template <typename V>
void invert(const Tables<V>& t, V w, V& io, V& jo) {
  const V i = low_nibbles(w), k = high_nibbles(w), j = vxor(i, k);
  const V ak = lookup(t.a_over, k);
  io = vxor(j, lookup(t.inv, vxor(lookup(t.inv, i), ak)));
  jo = vxor(i, lookup(t.inv, vxor(lookup(t.inv, j), ak)));
}

// SubBytes in the standard form (the key schedule).
template <typename V>
V sub_bytes(const Tables<V>& t, V x) {
  V io, jo;
  invert(t, to_tower(t, x), io, jo);
  return vxor(vxor(lookup(t.p_std, io), lookup(t.q_std, jo)), splat(0x63, V{}));
}

// One block, with the round keys expand() leaves. SubBytes before ShiftRows (they commute), and
// ShiftRows folded into the four byte permutations MixColumns needs: b = 2a ^ 3 rot1 a ^ rot2 a ^
// rot3 a per column, rotk rotating each column up by k rows. The permutations are swizzles by
// constant indexes, which V8 emits as one pshufb each (an i8x16.shuffle costs it 4 more
// instructions to build the mask): 7.5% of the time per block.
template <typename V>
V encrypt(const Key& k, const Tables<V>& t, V s) {
  s = to_tower(t, vxor(s, load(k.rk[0], V{})));
  V io, jo;
  for (int r = 1; r < kRounds; r++) {
    invert(t, s, io, jo);
    const V s1 = vxor(lookup(t.p1, io), lookup(t.q1, jo)), s2 = vxor(lookup(t.p2, io), lookup(t.q2, jo));
    s = vxor(vxor(lookup(s2, t.shift[0]), lookup(vxor(s1, s2), t.shift[1])),
             vxor(vxor(lookup(s1, t.shift[2]), lookup(s1, t.shift[3])), load(k.rk[r], V{})));
  }
  invert(t, s, io, jo);
  return vxor(lookup(vxor(lookup(t.p_std, io), lookup(t.q_std, jo)), t.shift[0]), load(k.rk[kRounds], V{}));
}

template <typename V>
void cbc(const Key& k, uint8_t chain[kBlockBytes], const uint8_t* in, uint8_t* out, size_t nblocks) {
  const Tables<V> t(kTower);
  V c = load(chain, V{});
  for (size_t i = 0; i < nblocks; i++) {
    c = encrypt(k, t, vxor(c, load(in + i * kBlockBytes, V{})));
    store(out + i * kBlockBytes, c);
  }
  store(chain, c);
}

// FIPS-197 §5.2 for Nk = 8, SubWord through sub_bytes (constant time) in the low four bytes; then
// round keys 1..13 go to the tower form and all but the first take the S-box constant.
template <typename V>
void expand(Key& k, const uint8_t key[kKeyBytes]) {
  const Tables<V> tables(kTower);
  uint8_t w[4 * (kRounds + 1)][4];
  std::memcpy(w, key, kKeyBytes);
  alignas(16) uint8_t t[kBlockBytes] = {};
  for (size_t i = kKeyBytes / 4; i < 4 * (kRounds + 1); i++) {
    std::memcpy(t, w[i - 1], 4);
    if (i % 8 == 0 || i % 8 == 4) {
      if (i % 8 == 0) {  // RotWord
        const uint8_t first = t[0];
        std::memmove(t, t + 1, 3);
        t[3] = first;
      }
      store(t, sub_bytes(tables, load(t, V{})));
      if (i % 8 == 0) t[0] ^= kRcon[i / 8 - 1];
    }
    for (int j = 0; j < 4; j++) w[i][j] = static_cast<uint8_t>(w[i - 8][j] ^ t[j]);
  }
  static_assert(sizeof w == sizeof k.rk);
  std::memcpy(k.rk, w, sizeof w);
  for (int r = 1; r < kRounds; r++) {
    store(k.rk[r], vxor(to_tower(tables, load(k.rk[r], V{})), splat(kS63, V{})));
  }
  store(k.rk[kRounds], vxor(load(k.rk[kRounds], V{}), splat(0x63, V{})));
  sodium_memzero(w, sizeof w);
  sodium_memzero(t, sizeof t);
}

}  // namespace

#if defined(__wasm_simd128__)
void expand_key(Key& k, const uint8_t key[kKeyBytes]) noexcept { expand<v128_t>(k, key); }
void cbc_encrypt_blocks(const Key& k, uint8_t chain[kBlockBytes], const uint8_t* in, uint8_t* out,
                        size_t nblocks) noexcept {
  cbc<v128_t>(k, chain, in, out, nblocks);
}
#endif

void wipe(Key& k) noexcept { sodium_memzero(&k, sizeof k); }

namespace detail {
void expand_key_portable(Key& k, const uint8_t key[kKeyBytes]) noexcept { expand<Portable>(k, key); }
void cbc_encrypt_blocks_portable(const Key& k, uint8_t chain[kBlockBytes], const uint8_t* in, uint8_t* out,
                                 size_t nblocks) noexcept {
  cbc<Portable>(k, chain, in, out, nblocks);
}
}  // namespace detail

}  // namespace wacore::aes::byteslice
