// Base64 (standard alphabet, RFC 4648 §4) of fixed-size byte fields, in constant time: the records'
// JSON forms hold root, chain and private keys as base64, so neither direction may branch or index
// memory on a character or a byte. Each 6-bit value is mapped to its character, and back, by
// arithmetic on ranges (no table). libsodium's sodium_bin2base64/sodium_base642bin are constant-time
// too but handle every variant and length per character (about 50 instructions a character on the
// JSON paths, half of their work); these know the length at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace wacore::base64 {

// Characters of base64 of N bytes: padded to a multiple of 4, and without padding.
template <size_t N>
inline constexpr size_t kPadded = 4 * ((N + 2) / 3);
template <size_t N>
inline constexpr size_t kUnpadded = 4 * (N / 3) + (N % 3 == 0 ? 0 : N % 3 + 1);

// 0..63 to its character. (k - v) >> 8 is -1 where v > k and 0 elsewhere (v and k below 256).
constexpr char encode6(uint32_t value) noexcept {
  const int v = static_cast<int>(value & 63);
  int diff = 'A';
  diff += ((25 - v) >> 8) & ('a' - 'A' - 26);  // 26..51: 'a'..'z'
  diff -= ((51 - v) >> 8) & ('a' - 26 - ('0' - 52));  // 52..61: '0'..'9'
  diff -= ((61 - v) >> 8) & (('0' - 52) - ('+' - 62));  // 62: '+'
  diff += ((62 - v) >> 8) & (('/' - 63) - ('+' - 62));  // 63: '/'
  return static_cast<char>(v + diff);
}

// A character to 0..63, or -1 when it is not in the alphabet. For a range lo..hi,
// ((lo - 1 - c) & (c - hi - 1)) >> 8 is -1 inside it and 0 outside (c below 256).
constexpr int decode6(char ch) noexcept {
  const int c = static_cast<unsigned char>(ch);
  int v = -1;
  v += (((('A' - 1) - c) & (c - ('Z' + 1))) >> 8) & (c - 'A' + 1);
  v += (((('a' - 1) - c) & (c - ('z' + 1))) >> 8) & (c - 'a' + 27);
  v += (((('0' - 1) - c) & (c - ('9' + 1))) >> 8) & (c - '0' + 53);
  v += (((('+' - 1) - c) & (c - ('+' + 1))) >> 8) & 63;
  v += (((('/' - 1) - c) & (c - ('/' + 1))) >> 8) & 64;
  return v;
}

// Writes kPadded<N> characters and a NUL (out holds kPadded<N> + 1).
template <size_t N>
void encode(const std::array<uint8_t, N>& in, char* out) noexcept {
  size_t o = 0;
  size_t i = 0;
  for (; i + 3 <= N; i += 3) {
    const uint32_t w = uint32_t{in[i]} << 16 | uint32_t{in[i + 1]} << 8 | in[i + 2];
    out[o++] = encode6(w >> 18);
    out[o++] = encode6(w >> 12);
    out[o++] = encode6(w >> 6);
    out[o++] = encode6(w);
  }
  if constexpr (N % 3 == 1) {
    const uint32_t w = uint32_t{in[i]} << 16;
    out[o++] = encode6(w >> 18);
    out[o++] = encode6(w >> 12);
    out[o++] = '=';
    out[o++] = '=';
  } else if constexpr (N % 3 == 2) {
    const uint32_t w = uint32_t{in[i]} << 16 | uint32_t{in[i + 1]} << 8;
    out[o++] = encode6(w >> 18);
    out[o++] = encode6(w >> 12);
    out[o++] = encode6(w >> 6);
    out[o++] = '=';
  }
  out[o] = '\0';
}

// Reads base64 of exactly N bytes, padded or not, as Node's Buffer writes and reads it. Refused:
// any other length, characters outside the alphabet, padding anywhere but at the end, and unused
// low bits that are not zero (a second spelling of the same bytes). `out` is written either way.
template <size_t N>
bool decode(const char* s, size_t len, std::array<uint8_t, N>& out) noexcept {
  if (len != kUnpadded<N> && len != kPadded<N>) return false;
  for (size_t k = kUnpadded<N>; k < len; k++) {
    if (s[k] != '=') return false;  // padding is not secret
  }
  int bad = 0;  // becomes non-zero on any bad character or non-zero unused bit
  size_t i = 0;
  size_t o = 0;
  auto get = [&](size_t k) {
    const int v = decode6(s[k]);
    bad |= v >> 8;  // -1 for a character outside the alphabet, 0 otherwise
    return static_cast<uint32_t>(v) & 63;
  };
  for (; o + 3 <= N; o += 3, i += 4) {
    const uint32_t w = get(i) << 18 | get(i + 1) << 12 | get(i + 2) << 6 | get(i + 3);
    out[o] = static_cast<uint8_t>(w >> 16);
    out[o + 1] = static_cast<uint8_t>(w >> 8);
    out[o + 2] = static_cast<uint8_t>(w);
  }
  if constexpr (N % 3 == 1) {
    const uint32_t a = get(i), b = get(i + 1);
    bad |= static_cast<int>(b & 0x0f);
    out[o] = static_cast<uint8_t>(a << 2 | b >> 4);
  } else if constexpr (N % 3 == 2) {
    const uint32_t a = get(i), b = get(i + 1), c = get(i + 2);
    bad |= static_cast<int>(c & 0x03);
    out[o] = static_cast<uint8_t>(a << 2 | b >> 4);
    out[o + 1] = static_cast<uint8_t>((b & 0x0f) << 4 | c >> 2);
  }
  return bad == 0;
}

}  // namespace wacore::base64
