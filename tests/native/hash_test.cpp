// SHA-2, HMAC and HKDF: Wycheproof, known answers, streaming splits, constant-time compare.
#include "crypto/hash.h"

#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace wacore::hash {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

Bytes str(const std::string& s) { return Bytes(s.begin(), s.end()); }

TEST(Sha2, KnownAnswers) {
  uint8_t d256[32], d512[64];
  sha256(str("abc"), d256);
  EXPECT_EQ(to_hex(d256, 32), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  sha512(str("abc"), d512);
  EXPECT_EQ(to_hex(d512, 64),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
  sha256({}, d256);
  EXPECT_EQ(to_hex(d256, 32), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

// Every MAC test of Wycheproof's hmac_sha256/512 files: a valid tag equals our (possibly truncated)
// MAC, an invalid one differs from it.
void run_hmac_vectors(const char* file, bool is512) {
  WACORE_WYCHEPROOF_OR_SKIP(doc, file);
  int count = 0;
  for (const auto& g : doc["testGroups"]) {
    const size_t tag_bytes = g["tagSize"].get<size_t>() / 8;
    for (const auto& t : g["tests"]) {
      SCOPED_TRACE("tcId " + std::to_string(t["tcId"].get<int>()));
      const Bytes key = from_hex(t["key"].get<std::string>());
      const Bytes msg = from_hex(t["msg"].get<std::string>());
      const Bytes tag = from_hex(t["tag"].get<std::string>());
      uint8_t mac[64];
      if (is512) {
        hmac_sha512(key, msg, mac);
      } else {
        hmac_sha256(key, msg, mac);
      }
      const bool match = tag.size() == tag_bytes && equal(mac, tag.data(), tag_bytes);
      EXPECT_EQ(match, t["result"] == "valid");
      count++;
    }
  }
  EXPECT_EQ(count, 174);
}

TEST(Hmac, WycheproofSha256) { run_hmac_vectors("hmac_sha256_test.json", false); }
TEST(Hmac, WycheproofSha512) { run_hmac_vectors("hmac_sha512_test.json", true); }

TEST(Hkdf, WycheproofSha256) {
  WACORE_WYCHEPROOF_OR_SKIP(doc, "hkdf_sha256_test.json");
  int valid = 0, invalid = 0;
  for (const auto& g : doc["testGroups"]) {
    for (const auto& t : g["tests"]) {
      SCOPED_TRACE("tcId " + std::to_string(t["tcId"].get<int>()));
      const Bytes ikm = from_hex(t["ikm"].get<std::string>());
      const Bytes salt = from_hex(t["salt"].get<std::string>());
      const Bytes info = from_hex(t["info"].get<std::string>());
      Bytes out(t["size"].get<size_t>());
      const Error e = hkdf(ikm, salt, info, out);
      if (t["result"] == "valid") {
        ASSERT_EQ(e, Error::ok);
        EXPECT_EQ(to_hex(out), t["okm"].get<std::string>());
        valid++;
      } else {
        EXPECT_EQ(e, Error::output_length);
        invalid++;
      }
    }
  }
  EXPECT_EQ(valid, 83);
  EXPECT_EQ(invalid, 3);
}

TEST(Hkdf, EmptySaltEqualsZeroSaltAndMaxLengthEdges) {
  const Bytes ikm(22, 0x0b), info = from_hex("f0f1f2f3f4f5f6f7f8f9");
  Bytes a(42), b(42);
  ASSERT_EQ(hkdf(ikm, {}, info, a), Error::ok);
  ASSERT_EQ(hkdf(ikm, Bytes(32, 0), info, b), Error::ok);
  EXPECT_EQ(to_hex(a), to_hex(b));
  // RFC 5869 A.3 (no salt, no info).
  ASSERT_EQ(hkdf(ikm, {}, {}, a), Error::ok);
  EXPECT_EQ(to_hex(a), "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
  Bytes max(kHkdfMaxOutput), over(kHkdfMaxOutput + 1), none;
  EXPECT_EQ(hkdf(ikm, {}, info, max), Error::ok);
  EXPECT_EQ(hkdf(ikm, {}, info, over), Error::output_length);
  EXPECT_EQ(hkdf(ikm, {}, info, none), Error::ok);
  // Every prefix length gives a prefix of the longest output.
  for (size_t n = 1; n <= 100; n++) {
    Bytes part(n);
    ASSERT_EQ(hkdf(ikm, {}, info, part), Error::ok);
    EXPECT_EQ(to_hex(part), to_hex(max).substr(0, 2 * n));
  }
}

TEST(Stream, EverySplitEqualsOneShot) {
  Bytes msg(300);
  for (size_t i = 0; i < msg.size(); i++) msg[i] = static_cast<uint8_t>(i * 31 + 7);
  const Bytes key = from_hex("000102030405060708090a0b0c0d0e0f");
  for (auto alg : {Algorithm::sha256, Algorithm::sha512, Algorithm::hmac_sha256, Algorithm::hmac_sha512}) {
    uint8_t want[64];
    switch (alg) {
      case Algorithm::sha256: sha256(msg, want); break;
      case Algorithm::sha512: sha512(msg, want); break;
      case Algorithm::hmac_sha256: hmac_sha256(key, msg, want); break;
      case Algorithm::hmac_sha512: hmac_sha512(key, msg, want); break;
    }
    for (size_t split = 0; split <= msg.size(); split += 7) {
      Stream s;
      s.init(alg, key);
      s.update(std::span<const uint8_t>(msg).first(split));
      s.update(std::span<const uint8_t>(msg).subspan(split));
      uint8_t got[64];
      s.final(got);
      ASSERT_EQ(to_hex(got, s.digest_size()), to_hex(want, s.digest_size())) << split;
    }
  }
}

TEST(Equal, ComparesEveryByte) {
  Bytes a(64, 5), b(64, 5);
  EXPECT_TRUE(equal(a.data(), b.data(), 64));
  EXPECT_TRUE(equal(a.data(), b.data(), 0));
  for (size_t i = 0; i < 64; i++) {
    for (uint8_t bit = 1; bit != 0; bit = static_cast<uint8_t>(bit << 1)) {
      b[i] ^= bit;
      EXPECT_FALSE(equal(a.data(), b.data(), 64));
      b[i] ^= bit;
    }
  }
}

}  // namespace
}  // namespace wacore::hash
