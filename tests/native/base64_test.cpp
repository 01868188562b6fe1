// The constant-time base64 of the JSON record fields (src/common/base64.h) against libsodium's,
// which it replaced: the same text for every byte field size the records hold, and the same
// accept/refuse answer and bytes for random, mutated and non-canonical text (except bytes above
// 0x7f, which libsodium 1.0.18 reads as characters of the alphabet and we refuse).
#include "common/base64.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <random>
#include <string>

namespace wacore::base64 {
namespace {

// What the JSON readers accepted before: padded, else unpadded; the whole text; exactly N bytes.
template <size_t N>
bool sodium_decode(const std::string& s, std::array<uint8_t, N>& out) {
  for (int variant : {sodium_base64_VARIANT_ORIGINAL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING}) {
    size_t n = 0;
    const char* end = nullptr;
    if (sodium_base642bin(out.data(), N, s.data(), s.size(), nullptr, &n, &end, variant) == 0 && end == s.data() + s.size() &&
        n == N) {
      return true;
    }
  }
  return false;
}

template <size_t N>
void check_size(std::mt19937& rng) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ .\n\x80\xff";
  for (int round = 0; round < 4000; round++) {
    std::array<uint8_t, N> bytes;
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    char ours[kPadded<N> + 1];
    encode(bytes, ours);
    std::string theirs(sodium_base64_ENCODED_LEN(N, sodium_base64_VARIANT_ORIGINAL), '\0');
    sodium_bin2base64(theirs.data(), theirs.size(), bytes.data(), N, sodium_base64_VARIANT_ORIGINAL);
    theirs.resize(theirs.size() - 1);
    ASSERT_EQ(std::string(ours), theirs);
    // Mutations of a valid text: one character changed, padding dropped, cut, extended.
    std::string text = theirs;
    switch (round % 5) {
      case 0: break;
      case 1: text[rng() % text.size()] = alphabet[rng() % alphabet.size()]; break;
      case 2: while (!text.empty() && text.back() == '=') text.pop_back(); break;
      case 3: text.resize(rng() % text.size()); break;
      case 4: text += alphabet[rng() % alphabet.size()]; break;
    }
    if (round % 7 == 0 && !text.empty()) {
      // A last character whose unused low bits are set, where the size leaves some.
      const size_t last = kUnpadded<N> - 1;
      if (last < text.size() && N % 3 != 0) text[last] = 'z';
    }
    std::array<uint8_t, N> a{}, b{};
    const bool ok_ours = decode(text.data(), text.size(), a);
    const bool ok_theirs = sodium_decode(text, b);
    // libsodium 1.0.18 takes some bytes above 0x7f as base64 characters; we refuse them.
    const bool non_ascii = text.find_first_of("\x80\xff") != std::string::npos;
    if (non_ascii) {
      ASSERT_FALSE(ok_ours) << text;
      continue;
    }
    ASSERT_EQ(ok_ours, ok_theirs) << N << " bytes: \"" << text << '"';
    if (ok_ours) {
      ASSERT_EQ(a, b) << text;
    }
  }
}

TEST(Base64, SameAsLibsodiumForEveryFieldSize) {
  std::mt19937 rng(20261201);
  check_size<32>(rng);  // keys, seeds
  check_size<33>(rng);  // public keys with their type byte
  check_size<1>(rng);
  check_size<2>(rng);
  check_size<3>(rng);
  check_size<64>(rng);
}

TEST(Base64, EveryCharacterMapsAsTheAlphabetSays) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (uint32_t v = 0; v < 64; v++) EXPECT_EQ(encode6(v), alphabet[v]);
  for (int c = 0; c < 256; c++) {
    const size_t at = alphabet.find(static_cast<char>(c));
    EXPECT_EQ(decode6(static_cast<char>(c)), at == std::string::npos ? -1 : static_cast<int>(at)) << c;
  }
}

}  // namespace
}  // namespace wacore::base64
