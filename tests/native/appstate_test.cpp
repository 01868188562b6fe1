// App-state keys, LTHash and MACs: the docs/protocol.md §7.2 vector, LTHash algebra, MAC layouts.
#include "appstate/appstate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "crypto/hash.h"
#include "crypto/sha256x4.h"
#include "test_util.h"

namespace wacore::appstate {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

Bytes ascii(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes random_macs(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n * kMacBytes);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

// docs/protocol.md §7.2: keyData 07 x 32, SET, key id "abc", IV 01 x 16, SyncActionData 0a0474657374.
TEST(AppState, ValueBlobMatchesPublishedVectorAndOpensOnlyIntact) {
  MutationKeys keys;
  expand_keys(Bytes(32, 7), keys);
  const Bytes key_id = ascii("abc"), iv(16, 1), plain = from_hex("0a0474657374");
  Bytes blob(encrypted_value_size(plain.size()));
  encrypt_value(keys, Operation::set, key_id, plain, iv.data(), blob.data());
  EXPECT_EQ(to_hex(blob).substr(2 * (blob.size() - kMacBytes)),
            "d73c5c5b5c19c6d59aea46c2840ff0111c7cc519ae04c0fb3e9bac46bf46df9f");
  Bytes out(blob.size());
  size_t n = 0;
  ASSERT_EQ(decrypt_value(keys, Operation::set, key_id, blob, out.data(), &n), Error::ok);
  EXPECT_EQ(to_hex(out.data(), n), "0a0474657374");
  // The MAC covers the operation, the key id and every byte of the blob; nothing decrypts without it.
  EXPECT_EQ(decrypt_value(keys, Operation::remove, key_id, blob, out.data(), &n), Error::auth_tag);
  EXPECT_EQ(decrypt_value(keys, Operation::set, ascii("abd"), blob, out.data(), &n), Error::auth_tag);
  for (size_t i = 0; i < blob.size(); i++) {
    Bytes bad = blob;
    bad[i] ^= 0x10;
    ASSERT_EQ(decrypt_value(keys, Operation::set, key_id, bad, out.data(), &n), Error::auth_tag) << i;
  }
  EXPECT_EQ(decrypt_value(keys, Operation::set, key_id, Bytes(63), out.data(), &n), Error::data_length);
  EXPECT_EQ(decrypt_value(keys, Operation::set, key_id, Bytes(65), out.data(), &n), Error::data_length);
}

TEST(AppState, KeysAreTheHkdfSplit) {
  MutationKeys keys;
  const Bytes data = random_macs(1, 9);
  expand_keys(data, keys);
  Bytes okm(160);
  ASSERT_EQ(hash::hkdf(data, {}, ascii("WhatsApp Mutation Keys"), okm), Error::ok);
  EXPECT_EQ(to_hex(keys.index, 32), to_hex(okm).substr(0, 64));
  EXPECT_EQ(to_hex(keys.patch_mac, 32), to_hex(okm).substr(256, 64));
}

TEST(LtHash, IsOrderIndependentAndSubtractUndoesAdd) {
  const Bytes macs = random_macs(50, 1);
  uint8_t a[kLtHashBytes] = {}, b[kLtHashBytes] = {}, zero[kLtHashBytes] = {};
  lthash_subtract_then_add(a, macs, {});
  // Same MACs in reverse order, one at a time.
  for (size_t i = 50; i-- > 0;) lthash_subtract_then_add(b, std::span<const uint8_t>(macs).subspan(i * 32, 32), {});
  EXPECT_EQ(to_hex(a, 128), to_hex(b, 128));
  lthash_subtract_then_add(a, {}, macs);
  EXPECT_EQ(to_hex(a, 128), to_hex(zero, 128));
  // Replacing a value: subtract the old MAC and add the new one in one call.
  const Bytes old_mac = random_macs(1, 2), new_mac = random_macs(1, 3);
  uint8_t c[kLtHashBytes] = {}, d[kLtHashBytes] = {};
  lthash_subtract_then_add(c, old_mac, {});
  lthash_subtract_then_add(c, new_mac, old_mac);
  lthash_subtract_then_add(d, new_mac, {});
  EXPECT_EQ(to_hex(c, 128), to_hex(d, 128));
}

TEST(LtHash, AddsTheHkdfExpansionLaneWiseModulo65536) {
  const Bytes mac = random_macs(1, 4);
  Bytes e(128);
  ASSERT_EQ(hash::hkdf(mac, {}, ascii("WhatsApp Patch Integrity"), e), Error::ok);
  uint8_t h[kLtHashBytes];
  for (size_t i = 0; i < 128; i++) h[i] = static_cast<uint8_t>(0xF0 + i);  // lanes near the top: carries wrap
  Bytes want(128);
  for (size_t i = 0; i < 128; i += 2) {
    const unsigned lane = (h[i] | h[i + 1] << 8) + (e[i] | e[i + 1] << 8);
    want[i] = static_cast<uint8_t>(lane);
    want[i + 1] = static_cast<uint8_t>(lane >> 8);
  }
  lthash_subtract_then_add(h, mac, {});
  EXPECT_EQ(to_hex(h, 128), to_hex(want));
}

// The one-word compression (a 16-word schedule window, partly unrolled) and the lockstep one (the
// whole schedule first) on random states and blocks agree with each other, and from the initial
// state on a padded one-block message they give SHA-256 itself.
TEST(LtHash, OneWordCompressionEqualsLockstepAndSha256) {
  std::mt19937 rng(77);
  for (int trial = 0; trial < 50; trial++) {
    uint32_t state[sha256x4::kWidth][8], block[sha256x4::kWidth][16];
    for (int l = 0; l < sha256x4::kWidth; l++) {
      for (auto& w : state[l]) w = static_cast<uint32_t>(rng());
      for (auto& w : block[l]) w = static_cast<uint32_t>(rng());
    }
    sha256x4::Lanes s[8], b[16];
    uint32_t words[sha256x4::kWidth];
    for (int i = 0; i < 8; i++) {
      for (int l = 0; l < sha256x4::kWidth; l++) words[l] = state[l][i];
      s[i] = sha256x4::make(words);
    }
    for (int i = 0; i < 16; i++) {
      for (int l = 0; l < sha256x4::kWidth; l++) words[l] = block[l][i];
      b[i] = sha256x4::make(words);
    }
    sha256x4::compress(s, b);
    for (int l = 0; l < sha256x4::kWidth; l++) sha256x4::compress(state[l], block[l]);
    for (int i = 0; i < 8; i++) {
      sha256x4::store(s[i], words);
      for (int l = 0; l < sha256x4::kWidth; l++) ASSERT_EQ(words[l], state[l][i]) << trial << " " << l << " " << i;
    }
  }
  for (size_t len = 0; len <= 55; len += 11) {
    Bytes msg = random_macs(2, static_cast<uint32_t>(len));
    msg.resize(len);
    uint8_t padded[64] = {};
    std::copy(msg.begin(), msg.end(), padded);
    padded[len] = 0x80;
    padded[62] = static_cast<uint8_t>((len * 8) >> 8);
    padded[63] = static_cast<uint8_t>(len * 8);
    uint32_t st[8], blk[16];
    std::copy(std::begin(sha256x4::kInitialState), std::end(sha256x4::kInitialState), st);
    for (int i = 0; i < 16; i++) {
      blk[i] = static_cast<uint32_t>(padded[4 * i]) << 24 | static_cast<uint32_t>(padded[4 * i + 1]) << 16 |
               static_cast<uint32_t>(padded[4 * i + 2]) << 8 | padded[4 * i + 3];
    }
    sha256x4::compress(st, blk);
    Bytes got(32);
    for (int i = 0; i < 8; i++) {
      for (int k = 0; k < 4; k++) got[4 * i + k] = static_cast<uint8_t>(st[i] >> (24 - 8 * k));
    }
    uint8_t want[hash::kSha256Bytes];
    hash::sha256(msg, want);
    EXPECT_EQ(to_hex(got), to_hex(want, 32)) << len;
  }
}

// The LTHash expands MACs four at a time (lockstep SHA-256); every count, including partial batches,
// must give what one HKDF per MAC gives.
TEST(LtHash, BatchedExpansionEqualsOneHkdfPerMacAtEveryCount) {
  for (size_t n = 0; n <= 13; n++) {
    const Bytes macs = random_macs(n, static_cast<uint32_t>(100 + n));
    uint8_t got[kLtHashBytes] = {}, one[kLtHashBytes] = {}, minus[kLtHashBytes] = {}, minus_one[kLtHashBytes] = {};
    detail::lthash_lockstep(got, macs, {});
    detail::lthash_one_by_one(one, macs, {});
    EXPECT_EQ(to_hex(got, 128), to_hex(one, 128)) << n;
    const std::span<const uint8_t> some = std::span<const uint8_t>(macs).first(std::min<size_t>(64, macs.size()));
    detail::lthash_lockstep(minus, some, macs);
    detail::lthash_one_by_one(minus_one, some, macs);
    EXPECT_EQ(to_hex(minus, 128), to_hex(minus_one, 128)) << n;
    std::vector<uint32_t> lanes(64, 0);
    for (size_t m = 0; m < n; m++) {
      Bytes e(128);
      ASSERT_EQ(hash::hkdf(std::span<const uint8_t>(macs).subspan(32 * m, 32), {}, ascii("WhatsApp Patch Integrity"), e),
                Error::ok);
      for (size_t i = 0; i < 64; i++) lanes[i] += static_cast<uint32_t>(e[2 * i] | e[2 * i + 1] << 8);
    }
    Bytes want(128);
    for (size_t i = 0; i < 64; i++) {
      want[2 * i] = static_cast<uint8_t>(lanes[i]);
      want[2 * i + 1] = static_cast<uint8_t>(lanes[i] >> 8);
    }
    EXPECT_EQ(to_hex(got, 128), to_hex(want)) << n;
  }
}

TEST(AppState, SnapshotAndPatchMacLayouts) {
  const Bytes key = random_macs(1, 5), lthash = random_macs(4, 6), snap = random_macs(1, 7), values = random_macs(3, 8);
  const uint64_t version = 0x0000000100000002ULL;  // above 2^32: all 8 bytes matter
  uint8_t got[32], want[32];
  snapshot_mac(lthash.data(), version, "regular_high", key.data(), got);
  Bytes msg = lthash;
  for (int i = 7; i >= 0; i--) msg.push_back(static_cast<uint8_t>(version >> (8 * i)));
  const Bytes name = ascii("regular_high");
  msg.insert(msg.end(), name.begin(), name.end());
  hash::hmac_sha256(key, msg, want);
  EXPECT_EQ(to_hex(got, 32), to_hex(want, 32));

  patch_mac(snap.data(), values, version, "regular_high", key.data(), got);
  msg = snap;
  msg.insert(msg.end(), values.begin(), values.end());
  for (int i = 7; i >= 0; i--) msg.push_back(static_cast<uint8_t>(version >> (8 * i)));
  msg.insert(msg.end(), name.begin(), name.end());
  hash::hmac_sha256(key, msg, want);
  EXPECT_EQ(to_hex(got, 32), to_hex(want, 32));

  index_mac(key.data(), ascii("[\"archive\",\"123@s.whatsapp.net\"]"), got);
  hash::hmac_sha256(key, ascii("[\"archive\",\"123@s.whatsapp.net\"]"), want);
  EXPECT_EQ(to_hex(got, 32), to_hex(want, 32));
}

}  // namespace
}  // namespace wacore::appstate
