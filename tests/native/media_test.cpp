// Media encryption: the docs/protocol.md §7.2 vector, verification before plaintext, streaming splits,
// range decryption, the sidecar layout, media retry.
#include "media/media.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "crypto/aes_modes.h"
#include "crypto/hash.h"
#include "test_util.h"

namespace wacore::media {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

Bytes range_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

Keys image_keys(const Bytes& media_key) {
  Keys k;
  EXPECT_EQ(derive_keys(media_key, "WhatsApp Image Keys", k), Error::ok);
  return k;
}

// docs/protocol.md §7.2: media key = bytes 00..1f, image.
TEST(Media, PublishedVector) {
  Bytes mk(32);
  for (int i = 0; i < 32; i++) mk[static_cast<size_t>(i)] = static_cast<uint8_t>(i);
  const Keys k = image_keys(mk);
  EXPECT_EQ(to_hex(k.iv, 16), "aa6a127218397cbd2383e4ccf7176a79");
  const std::string hello = "hello world";
  const Bytes plain(hello.begin(), hello.end());
  Bytes up(encrypted_size(plain.size()));
  uint8_t sha[32], enc_sha[32];
  encrypt(k, plain, up.data(), sha, enc_sha);
  EXPECT_EQ(to_hex(up), "75b1a9edf1f075732e197e18b88ca3ae8a297f3d919a2d2b4d97");
  EXPECT_EQ(to_hex(enc_sha, 32), "f0c69a45ea3d77fffb3a5ea8c547d987661f70ae6ed9899533b8706d11f4ef5d");
  uint8_t want_sha[32];
  hash::sha256(plain, want_sha);
  EXPECT_EQ(to_hex(sha, 32), to_hex(want_sha, 32));
  Bytes out(up.size());
  size_t n = 0;
  ASSERT_EQ(decrypt(k, up, enc_sha, sha, out.data(), &n), Error::ok);
  EXPECT_EQ(std::string(out.begin(), out.begin() + static_cast<long>(n)), hello);
}

TEST(Media, TamperingIsRejectedBeforeAnyPlaintext) {
  const Keys k = image_keys(range_bytes(32, 1));
  const Bytes plain = range_bytes(1000, 2);
  Bytes up(encrypted_size(plain.size()));
  uint8_t sha[32], enc_sha[32];
  encrypt(k, plain, up.data(), sha, enc_sha);
  for (size_t i = 0; i < up.size(); i += 37) {
    Bytes bad = up;
    bad[i] ^= 1;
    Bytes out(up.size(), 0xAA);
    size_t n = 7;
    ASSERT_EQ(decrypt(k, bad, nullptr, nullptr, out.data(), &n), Error::auth_tag) << i;
    ASSERT_EQ(n, 0u);
    ASSERT_EQ(to_hex(out), to_hex(Bytes(up.size(), 0xAA))) << "no plaintext written";
  }
  Bytes out(up.size());
  size_t n = 0;
  uint8_t wrong[32] = {};
  EXPECT_EQ(decrypt(k, up, wrong, nullptr, out.data(), &n), Error::auth_tag) << "fileEncSha256 checked";
  EXPECT_EQ(decrypt(k, up, nullptr, wrong, out.data(), &n), Error::auth_tag) << "fileSha256 checked";
  EXPECT_EQ(to_hex(out.data(), 16), to_hex(Bytes(16, 0))) << "plaintext wiped after a fileSha256 mismatch";
  EXPECT_EQ(decrypt(k, std::span<const uint8_t>(up).first(25), nullptr, nullptr, out.data(), &n), Error::data_length);
  EXPECT_EQ(decrypt(k, std::span<const uint8_t>(up).first(up.size() - 1), nullptr, nullptr, out.data(), &n),
            Error::data_length);
}

TEST(Media, StreamingSplitsEqualOneShot) {
  const Keys k = image_keys(range_bytes(32, 3));
  for (size_t len : {0, 1, 15, 16, 17, 100, 1000}) {
    const Bytes plain = range_bytes(len, static_cast<uint32_t>(len));
    Bytes up(encrypted_size(len));
    uint8_t sha[32], enc_sha[32];
    encrypt(k, plain, up.data(), sha, enc_sha);
    for (size_t split = 0; split <= len; split += (len > 200 ? 61 : 1)) {
      Encryptor e;
      e.init(k);
      Bytes got(up.size());
      const size_t want1 = e.update_size(split);
      size_t w = e.update(plain.data(), split, got.data());
      ASSERT_EQ(w, want1);
      const size_t want2 = e.update_size(len - split);
      const size_t w2 = e.update(plain.data() + split, len - split, got.data() + w);
      ASSERT_EQ(w2, want2);
      w += w2;
      uint8_t s2[32], es2[32];
      e.final(got.data() + w, s2, es2);
      ASSERT_EQ(to_hex(got), to_hex(up));
      ASSERT_EQ(to_hex(es2, 32), to_hex(enc_sha, 32));
    }
    for (size_t split = 0; split <= up.size(); split += (up.size() > 200 ? 53 : 1)) {
      Decryptor d;
      d.init(k);
      Bytes got(up.size() + 16);
      // The JS side sizes each output buffer from update_size() asked before update(): update must
      // write exactly that much.
      const size_t want1 = d.update_size(split);
      size_t w = d.update(up.data(), split, got.data());
      ASSERT_EQ(w, want1) << len << "/" << split;
      const size_t want2 = d.update_size(up.size() - split);
      const size_t w2 = d.update(up.data() + split, up.size() - split, got.data() + w);
      ASSERT_EQ(w2, want2) << len << "/" << split;
      w += w2;
      size_t t = 0;
      uint8_t s2[32], es2[32];
      ASSERT_EQ(d.final(got.data() + w, &t, s2, es2), Error::ok) << len << "/" << split;
      ASSERT_EQ(to_hex(got.data(), w + t), to_hex(plain));
      ASSERT_EQ(to_hex(s2, 32), to_hex(sha, 32));
      ASSERT_EQ(to_hex(es2, 32), to_hex(enc_sha, 32));
    }
  }
}

TEST(Media, RangeDecryptionStartsAtAnyBlock) {
  const Keys k = image_keys(range_bytes(32, 4));
  const Bytes plain = range_bytes(5000, 5);
  Bytes up(encrypted_size(plain.size()));
  uint8_t sha[32], enc_sha[32];
  encrypt(k, plain, up.data(), sha, enc_sha);
  for (size_t block = 0; block < 300; block += 7) {
    const uint8_t* prev = block == 0 ? k.iv : up.data() + (block - 1) * 16;
    const size_t blocks = std::min<size_t>(20, 312 - block);
    Bytes out(blocks * 16);
    ASSERT_EQ(decrypt_range(k, prev, std::span<const uint8_t>(up).subspan(block * 16, blocks * 16), out.data()),
              Error::ok);
    ASSERT_EQ(to_hex(out), to_hex(plain).substr(block * 32, blocks * 32)) << block;
  }
  Bytes out(32);
  EXPECT_EQ(decrypt_range(k, k.iv, std::span<const uint8_t>(up).first(17), out.data()), Error::data_length);
}

TEST(Media, SidecarIsOneMacPer64KiBWindowOverIvAndUpload) {
  const Keys k = image_keys(range_bytes(32, 6));
  const Bytes up = range_bytes(200000, 7);  // S = 200,016 bytes: windows at 0, 64K, 128K, 192K
  Bytes side(sidecar_size(up.size()));
  ASSERT_EQ(side.size(), 4 * kMacBytes);
  sidecar(k, up, side.data());
  Bytes s(k.iv, k.iv + 16);
  s.insert(s.end(), up.begin(), up.end());
  for (size_t n = 0; n < 4; n++) {
    const size_t from = n * kSidecarChunk, to = std::min(s.size(), from + kSidecarChunk + 16);
    uint8_t mac[32];
    hash::hmac_sha256({k.mac, 32}, std::span<const uint8_t>(s).subspan(from, to - from), mac);
    EXPECT_EQ(to_hex(side.data() + 10 * n, 10), to_hex(mac, 10)) << n;
  }
}

// Media retry is AES-256-GCM under HKDF(media key, no salt, kRetryInfo) with the message id as AAD:
// checked against those primitives, then tampering (any byte, another id, another IV) refused.
TEST(Media, RetryIsGcmUnderTheRetryKeyWithTheMessageIdAsAad) {
  const Bytes media_key = range_bytes(32, 7);
  const Bytes id = {'3', 'E', 'B', '0', 'A', 'B'};
  const Bytes payload = range_bytes(60, 8);
  uint8_t iv[kRetryNonceBytes];
  Bytes sealed(payload.size() + aes::kGcmTagBytes);
  ASSERT_EQ(retry_seal(media_key, id, payload, iv, sealed.data()), Error::ok);

  uint8_t key[32];
  ASSERT_EQ(hash::hkdf(media_key, {}, {reinterpret_cast<const uint8_t*>(kRetryInfo.data()), kRetryInfo.size()}, key),
            Error::ok);
  Bytes expected(sealed.size());
  ASSERT_EQ(aes::gcm_seal(key, {iv, sizeof iv}, id, payload.data(), payload.size(), expected.data()), Error::ok);
  EXPECT_EQ(to_hex(sealed), to_hex(expected));

  Bytes out(payload.size());
  ASSERT_EQ(retry_open(media_key, id, {iv, sizeof iv}, sealed, out.data()), Error::ok);
  EXPECT_EQ(to_hex(out), to_hex(payload));
  const Bytes other_id = {'O', 'T', 'H', 'E', 'R'};
  EXPECT_EQ(retry_open(media_key, other_id, {iv, sizeof iv}, sealed, out.data()), Error::auth_tag);
  uint8_t other_iv[kRetryNonceBytes];
  std::memcpy(other_iv, iv, sizeof iv);
  other_iv[0] ^= 1;
  EXPECT_EQ(retry_open(media_key, id, {other_iv, sizeof other_iv}, sealed, out.data()), Error::auth_tag);
  for (size_t i = 0; i < sealed.size(); i += 7) {
    Bytes t = sealed;
    t[i] ^= 0x40;
    EXPECT_EQ(retry_open(media_key, id, {iv, sizeof iv}, t, out.data()), Error::auth_tag) << i;
  }
  EXPECT_EQ(retry_open(media_key, id, {iv, sizeof iv}, {sealed.data(), 15}, out.data()), Error::data_length);
  EXPECT_EQ(retry_open(Bytes(31), id, {iv, sizeof iv}, sealed, out.data()), Error::key_length);
  EXPECT_EQ(retry_seal(Bytes(33), id, payload, iv, sealed.data()), Error::key_length);

  // Two seals of the same payload draw different IVs.
  uint8_t iv2[kRetryNonceBytes];
  Bytes sealed2(sealed.size());
  ASSERT_EQ(retry_seal(media_key, id, payload, iv2, sealed2.data()), Error::ok);
  EXPECT_NE(to_hex(Bytes(iv, iv + sizeof iv)), to_hex(Bytes(iv2, iv2 + sizeof iv2)));
}

}  // namespace
}  // namespace wacore::media
