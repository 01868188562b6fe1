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

constexpr uint8_t gf_mul(uint8_t a, uint8_t b) {
  uint8_t r = 0;
  for (int i = 0; i < 8; i++) {
    if (b & 1) r ^= a;
    a = static_cast<uint8_t>((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
    b >>= 1;
  }
  return r;
}

constexpr uint8_t rotl8(uint8_t x, int n) { return static_cast<uint8_t>(x << n | x >> (8 - n)); }

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
      s[x] = static_cast<uint8_t>(inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63);
    }
  }
};
constexpr SboxTable kSbox;
static_assert(kSbox.s[0x00] == 0x63 && kSbox.s[0x01] == 0x7c && kSbox.s[0x53] == 0xed && kSbox.s[0xff] == 0x16);

// Round constants x^(i-1) in GF(2^8), for schedule words 8, 16, ..., 56.
constexpr uint8_t kRcon[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40};

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
inline constexpr Perm kShift0 = shift_rows_then_rotate(0);
inline constexpr Perm kShift1 = shift_rows_then_rotate(1);
inline constexpr Perm kShift2 = shift_rows_then_rotate(2);
inline constexpr Perm kShift3 = shift_rows_then_rotate(3);
static_assert(kShift0[1] == 5 && kShift0[2] == 10 && kShift0[3] == 15 && kShift0[4] == 4);

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
// Multiplication by x in GF(2^8), bytewise.
Portable xtime(Portable v) {
  for (auto& x : v.b) x = static_cast<uint8_t>((x << 1) ^ (0x1b & (0 - (x >> 7))));
  return v;
}
template <const Perm& P>
Portable permute(Portable v) {
  Portable r;
  for (size_t i = 0; i < kBlockBytes; i++) r.b[i] = v.b[P[i]];
  return r;
}

#if defined(__wasm_simd128__)
v128_t load(const uint8_t* p, v128_t) { return wasm_v128_load(p); }
void store(uint8_t* p, v128_t v) { wasm_v128_store(p, v); }
v128_t vxor(v128_t a, v128_t b) { return wasm_v128_xor(a, b); }
v128_t splat(uint8_t x, v128_t) { return wasm_i8x16_splat(static_cast<int8_t>(x)); }
v128_t lookup(v128_t table, v128_t idx) { return wasm_i8x16_swizzle(table, idx); }
v128_t xtime(v128_t v) {
  const v128_t top = wasm_i8x16_lt(v, wasm_i8x16_splat(0));  // bytes with bit 7 set
  return wasm_v128_xor(wasm_i8x16_add(v, v), wasm_v128_and(top, wasm_i8x16_splat(0x1b)));
}
template <const Perm& P>
v128_t permute(v128_t v) {
  return wasm_i8x16_shuffle(v, v, P[0], P[1], P[2], P[3], P[4], P[5], P[6], P[7], P[8], P[9], P[10], P[11], P[12],
                            P[13], P[14], P[15]);
}
#endif

// --- The algorithm, once over the vector type V ---------------------------------------------------

// SubBytes: table k holds S-box entries 16k..16k+15; the index x ^ 16k is below 16 exactly where x's
// high nibble is k, so each byte gets its entry from one table and zero from the fifteen others.
template <typename V>
V sub_bytes(V x) {
  V r = lookup(load(kSbox.s, V{}), x);
  WACORE_UNROLL_ALL  // so that each 16k is a constant vector
  for (int k = 1; k < 16; k++) r = vxor(r, lookup(load(kSbox.s + 16 * k, V{}), vxor(x, splat(static_cast<uint8_t>(k << 4), V{}))));
  return r;
}

// One block. SubBytes before ShiftRows (they commute), and ShiftRows folded into the four byte
// permutations MixColumns needs: b = 2(a ^ rot1 a) ^ rot1 a ^ rot2 a ^ rot3 a per column, rotk
// rotating each column up by k rows. (Rotating the columns by 32-bit shifts instead, with one
// ShiftRows permutation, measured 3% slower in V8.)
template <typename V>
V encrypt(const Key& k, V s) {
  s = vxor(s, load(k.rk[0], V{}));
  for (int r = 1; r < kRounds; r++) {
    const V t = sub_bytes(s);
    const V a = permute<kShift0>(t), a1 = permute<kShift1>(t), a2 = permute<kShift2>(t), a3 = permute<kShift3>(t);
    s = vxor(vxor(xtime(vxor(a, a1)), vxor(a1, a2)), vxor(a3, load(k.rk[r], V{})));
  }
  return vxor(permute<kShift0>(sub_bytes(s)), load(k.rk[kRounds], V{}));
}

template <typename V>
void cbc(const Key& k, uint8_t chain[kBlockBytes], const uint8_t* in, uint8_t* out, size_t nblocks) {
  V c = load(chain, V{});
  for (size_t i = 0; i < nblocks; i++) {
    c = encrypt(k, vxor(c, load(in + i * kBlockBytes, V{})));
    store(out + i * kBlockBytes, c);
  }
  store(chain, c);
}

// FIPS-197 §5.2 for Nk = 8. SubWord goes through sub_bytes (constant time) in the low four bytes.
template <typename V>
void expand(Key& k, const uint8_t key[kKeyBytes]) {
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
      store(t, sub_bytes(load(t, V{})));
      if (i % 8 == 0) t[0] ^= kRcon[i / 8 - 1];
    }
    for (int j = 0; j < 4; j++) w[i][j] = static_cast<uint8_t>(w[i - 8][j] ^ t[j]);
  }
  static_assert(sizeof w == sizeof k.rk);
  std::memcpy(k.rk, w, sizeof w);
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
