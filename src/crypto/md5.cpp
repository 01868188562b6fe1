// MD5 (RFC 1321). Not a security primitive here: WhatsApp clients use it only as a checksum (the
// bridge-compatible md5() of lib/baileys, which Baileys 7 re-exports), and libsodium has none.
// Inputs are not secret, so table lookups and data-dependent lengths are fine.
#include <array>
#include <cstring>

#include "crypto/hash.h"

namespace wacore::hash {
namespace {

// Per-round left rotations (RFC 1321, section 3.4), four per round of sixteen steps.
constexpr uint8_t kShift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

// T[i] = floor(2^32 * |sin(i + 1)|), the additive constants of RFC 1321's 64 steps.
constexpr uint32_t kT[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

constexpr uint32_t rotl(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

uint32_t load_le(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void compress(std::array<uint32_t, 4>& s, const uint8_t block[64]) {
  uint32_t x[16];
  for (int i = 0; i < 16; ++i) x[i] = load_le(block + 4 * i);
  uint32_t a = s[0], b = s[1], c = s[2], d = s[3];
  for (int i = 0; i < 64; ++i) {
    const int round = i / 16;
    uint32_t f;
    int k;
    switch (round) {
      case 0: f = (b & c) | (~b & d); k = i; break;
      case 1: f = (b & d) | (c & ~d); k = (5 * i + 1) % 16; break;
      case 2: f = b ^ c ^ d; k = (3 * i + 5) % 16; break;
      default: f = c ^ (b | ~d); k = (7 * i) % 16; break;
    }
    const uint32_t next = b + rotl(a + f + kT[i] + x[k], kShift[round][i % 4]);
    a = d;
    d = c;
    c = b;
    b = next;
  }
  s[0] += a;
  s[1] += b;
  s[2] += c;
  s[3] += d;
}

}  // namespace

void md5(Bytes in, uint8_t out[kMd5Bytes]) noexcept {
  std::array<uint32_t, 4> s = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  const uint8_t* p = in.data();
  size_t left = in.size();
  for (; left >= 64; left -= 64, p += 64) compress(s, p);
  // Padding: 0x80, zeros to 56 mod 64, then the message length in bits, little-endian.
  uint8_t tail[128] = {};
  if (left > 0) std::memcpy(tail, p, left);
  tail[left] = 0x80;
  const size_t tail_len = left < 56 ? 64 : 128;
  const uint64_t bits = static_cast<uint64_t>(in.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 8 + i] = static_cast<uint8_t>(bits >> (8 * i));
  for (size_t off = 0; off < tail_len; off += 64) compress(s, tail + off);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(s[i] >> (8 * j));
  }
}

}  // namespace wacore::hash
