// SHA-2, HMAC and HKDF: Wycheproof, known answers, streaming splits, constant-time compare.
#include "crypto/hash.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

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

// RFC 1321's test suite (appendix A.5), then lengths around the padding's block edges (bytes
// (7i + 1) mod 256; digests from Python's hashlib).
TEST(Md5, KnownAnswers) {
  const std::pair<const char*, const char*> rfc[] = {
      {"", "d41d8cd98f00b204e9800998ecf8427e"},
      {"a", "0cc175b9c0f1b6a831c399e269772661"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72"},
      {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
      {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
      {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
      {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
       "57edf4a22be3c955ac49da2e2107b67a"},
  };
  uint8_t d[kMd5Bytes];
  for (const auto& [text, want] : rfc) {
    md5(str(text), d);
    EXPECT_EQ(to_hex(d, kMd5Bytes), want) << text;
  }
  const std::pair<size_t, const char*> edges[] = {
      {55, "8c3eb046bcdb1f0ffe75fdbaf890cf13"},
      {56, "d5e0fa3122448ddd3d843a9c5ed9e839"},
      {63, "1dd0d6ddeb881b118518c2881555f34b"},
      {64, "7b412e00d38c31b0845a4f502d39d5e3"},
      {65, "ba03b626aceb7b09c86c2d544afe1dce"},
      {119, "dac58560b386c3d5b29ebbdec5197e10"},
      {120, "6818845a0494b5fade3155f6a8e47b15"},
      {1000, "7874d3c13d4ed33f057def947e0621ef"},
  };
  for (const auto& [n, want] : edges) {
    Bytes msg(n);
    for (size_t i = 0; i < n; ++i) msg[i] = static_cast<uint8_t>(i * 7 + 1);
    md5(msg, d);
    EXPECT_EQ(to_hex(d, kMd5Bytes), want) << n;
  }
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

// The pair shares one keyed state between its two MACs: each must equal its own hmac_sha256, for
// keys shorter than, as long as, and longer than the block, and messages of either order of size.
TEST(Hmac, PairEqualsTwoSingleMacs) {
  for (size_t key_len : {0, 1, 32, 64, 65, 200}) {
    Bytes key(key_len);
    for (size_t i = 0; i < key_len; i++) key[i] = static_cast<uint8_t>(i * 13 + key_len);
    for (auto [n1, n2] : {std::pair<size_t, size_t>{1, 1}, {0, 64}, {55, 56}, {64, 0}, {200, 3}}) {
      Bytes m1(n1, 0x01), m2(n2, 0x02);
      uint8_t want1[kSha256Bytes], want2[kSha256Bytes], got1[kSha256Bytes], got2[kSha256Bytes];
      hmac_sha256(key, m1, want1);
      hmac_sha256(key, m2, want2);
      hmac_sha256_pair(key, m1, got1, m2, got2);
      EXPECT_EQ(to_hex(got1, kSha256Bytes), to_hex(want1, kSha256Bytes)) << key_len << " " << n1;
      EXPECT_EQ(to_hex(got2, kSha256Bytes), to_hex(want2, kSha256Bytes)) << key_len << " " << n2;
    }
  }
}

// The empty salt's keyed state is made once and copied per call: calls in any order, with
// different keys in between, give what 32 zero bytes of salt (hashed afresh) give.
TEST(Hkdf, EmptySaltStateIsReusedUnchanged) {
  const uint8_t fills[] = {0x00, 0x0b, 0xff};
  std::vector<Bytes> first_round;
  for (int round = 0; round < 3; round++) {
    for (size_t k = 0; k < std::size(fills); k++) {
      const uint8_t fill = fills[k];
      const Bytes ikm(32, fill);
      Bytes empty(80), zeros(80);
      ASSERT_EQ(hkdf(ikm, {}, {}, empty), Error::ok);
      ASSERT_EQ(hkdf(ikm, Bytes(32, 0), {}, zeros), Error::ok);
      ASSERT_EQ(to_hex(empty), to_hex(zeros)) << int(fill);
      uint8_t prk[kSha256Bytes], want[kSha256Bytes];
      hkdf_extract({}, ikm, prk);
      hmac_sha256(Bytes(32, 0), ikm, want);
      ASSERT_EQ(to_hex(prk, kSha256Bytes), to_hex(want, kSha256Bytes));
      if (round == 0) {
        first_round.push_back(empty);
      } else {
        EXPECT_EQ(to_hex(empty), to_hex(first_round[k])) << round << " " << int(fill);
      }
    }
  }
}

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
