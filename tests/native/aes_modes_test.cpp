// AES-256 CTR, CBC and GCM: Wycheproof, SP 800-38A, a reference GHASH, streaming splits, in place.
#include "crypto/aes_modes.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "crypto/ghash.h"
#include "test_util.h"

namespace wacore::aes {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

const Bytes kKey = from_hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
const Bytes kPlain = from_hex(
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710");

Bytes random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

// SP 800-38A F.2.5 (CBC-AES256.Encrypt) and F.5.5 (CTR-AES256.Encrypt).
TEST(Cbc, Sp800_38aVector) {
  const Bytes iv = from_hex("000102030405060708090a0b0c0d0e0f");
  Bytes out(cbc_encrypted_size(kPlain.size()));
  cbc_encrypt(kKey.data(), iv.data(), kPlain.data(), kPlain.size(), out.data());
  EXPECT_EQ(to_hex(out).substr(0, 128),
            "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
            "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b");
  Bytes back(out.size());
  size_t n = 0;
  ASSERT_EQ(cbc_decrypt(kKey.data(), iv.data(), out.data(), out.size(), back.data(), &n), Error::ok);
  back.resize(n);
  EXPECT_EQ(to_hex(back), to_hex(kPlain));
}

TEST(Ctr, Sp800_38aVectorAndFullCounterCarry) {
  const Bytes iv = from_hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
  Bytes out(kPlain.size());
  ctr(kKey.data(), iv.data(), kPlain.data(), out.data(), out.size());
  EXPECT_EQ(to_hex(out),
            "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
            "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6");
  // The counter is one 128-bit big-endian number (as node:crypto's aes-256-ctr): ff..ff wraps to 0.
  const Bytes all_ff(16, 0xff);
  Bytes wrap(32);
  ctr(kKey.data(), all_ff.data(), kPlain.data(), wrap.data(), 32);
  EXPECT_EQ(to_hex(wrap), "50fd97c3e61abb4873fb78df1e8e77e64b457cd68accda4a89fa236c06bf2605");
}

// GHASH against the bit-serial multiplication of SP 800-38D, Algorithm 1, on random inputs.
void reference_mul(uint8_t x[16], const uint8_t y[16]) {
  uint8_t z[16] = {}, v[16];
  std::memcpy(v, y, 16);
  for (int i = 0; i < 128; i++) {
    if ((x[i / 8] >> (7 - i % 8)) & 1) {
      for (int j = 0; j < 16; j++) z[j] ^= v[j];
    }
    const bool lsb = v[15] & 1;
    for (int j = 15; j > 0; j--) v[j] = static_cast<uint8_t>((v[j] >> 1) | (v[j - 1] << 7));
    v[0] >>= 1;
    if (lsb) v[0] ^= 0xe1;
  }
  std::memcpy(x, z, 16);
}

TEST(Ghash, MatchesBitSerialReference) {
  for (uint32_t seed = 0; seed < 200; seed++) {
    const Bytes h = random_bytes(16, seed), data = random_bytes(16 * (1 + seed % 5), seed + 1000);
    ghash::State s;
    ghash::init(s, h.data());
    ghash::update(s, data.data(), data.size());
    uint8_t got[16], want[16] = {};
    ghash::digest(s, got);
    for (size_t off = 0; off < data.size(); off += 16) {
      for (int j = 0; j < 16; j++) want[j] ^= data[off + j];
      reference_mul(want, h.data());
    }
    ASSERT_EQ(to_hex(got, 16), to_hex(want, 16)) << seed;
  }
}

TEST(Gcm, WycheproofAes256) {
  WACORE_WYCHEPROOF_OR_SKIP(doc, "aes_gcm_test.json");
  int valid = 0, invalid = 0;
  for (const auto& g : doc["testGroups"]) {
    if (g["keySize"] != 256) continue;
    ASSERT_EQ(g["tagSize"], 128);
    for (const auto& t : g["tests"]) {
      SCOPED_TRACE("tcId " + std::to_string(t["tcId"].get<int>()) + " " + t["comment"].get<std::string>());
      const Bytes key = from_hex(t["key"].get<std::string>()), iv = from_hex(t["iv"].get<std::string>());
      const Bytes aad = from_hex(t["aad"].get<std::string>()), msg = from_hex(t["msg"].get<std::string>());
      Bytes sealed = from_hex(t["ct"].get<std::string>() + t["tag"].get<std::string>());
      Bytes opened(sealed.size() - 16, 0xAA);
      const Error e = gcm_open(key.data(), iv, aad, sealed.data(), sealed.size(), opened.data());
      if (t["result"] == "valid") {
        ASSERT_EQ(e, Error::ok);
        EXPECT_EQ(to_hex(opened), to_hex(msg));
        Bytes ours(msg.size() + 16);
        ASSERT_EQ(gcm_seal(key.data(), iv, aad, msg.data(), msg.size(), ours.data()), Error::ok);
        EXPECT_EQ(to_hex(ours), to_hex(sealed));
        valid++;
      } else {
        EXPECT_NE(e, Error::ok);
        if (iv.empty()) {
          EXPECT_EQ(e, Error::iv_length);
        } else {
          EXPECT_EQ(e, Error::auth_tag);
        }
        EXPECT_EQ(to_hex(opened), to_hex(Bytes(opened.size(), 0xAA))) << "no plaintext on failure";
        invalid++;
      }
    }
  }
  EXPECT_EQ(valid + invalid, 105);
  EXPECT_EQ(invalid, 29);
}

TEST(Cbc, WycheproofAes256) {
  WACORE_WYCHEPROOF_OR_SKIP(doc, "aes_cbc_pkcs5_test.json");
  int count = 0;
  for (const auto& g : doc["testGroups"]) {
    if (g["keySize"] != 256) continue;
    for (const auto& t : g["tests"]) {
      SCOPED_TRACE("tcId " + std::to_string(t["tcId"].get<int>()) + " " + t["comment"].get<std::string>());
      const Bytes key = from_hex(t["key"].get<std::string>()), iv = from_hex(t["iv"].get<std::string>());
      const Bytes msg = from_hex(t["msg"].get<std::string>()), ct = from_hex(t["ct"].get<std::string>());
      Bytes out(ct.size());
      size_t n = 99;
      const Error e = cbc_decrypt(key.data(), iv.data(), ct.data(), ct.size(), out.data(), &n);
      if (t["result"] == "valid") {
        ASSERT_EQ(e, Error::ok);
        out.resize(n);
        EXPECT_EQ(to_hex(out), to_hex(msg));
        Bytes enc(cbc_encrypted_size(msg.size()));
        cbc_encrypt(key.data(), iv.data(), msg.data(), msg.size(), enc.data());
        EXPECT_EQ(to_hex(enc), to_hex(ct));
      } else {
        EXPECT_TRUE(e == Error::bad_padding || e == Error::data_length) << error_code(e);
        EXPECT_EQ(n, 0u);
        EXPECT_EQ(to_hex(out), to_hex(Bytes(out.size(), 0))) << "output wiped on failure";
      }
      count++;
    }
  }
  EXPECT_EQ(count, 72);
}

TEST(Cbc, RejectsEveryBadPaddingAndLength) {
  const Bytes iv(16, 3);
  Bytes out(64);
  size_t n = 0;
  EXPECT_EQ(cbc_decrypt(kKey.data(), iv.data(), kPlain.data(), 0, out.data(), &n), Error::data_length);
  EXPECT_EQ(cbc_decrypt(kKey.data(), iv.data(), kPlain.data(), 17, out.data(), &n), Error::data_length);
  // Raw one-block ciphertexts (encrypted without padding) whose plaintext is chosen byte by byte.
  auto decrypt_raw = [&](const Bytes& block) {
    Bytes ct(16);
    CbcEncryptor e;
    e.init(kKey.data(), iv.data());
    e.update(block.data(), 16, ct.data());
    e.wipe();
    size_t len = 99;
    const Error err = cbc_decrypt(kKey.data(), iv.data(), ct.data(), 16, out.data(), &len);
    return std::make_pair(err, len);
  };
  for (int last = 0; last < 256; last++) {
    // Sixteen copies of L: valid padding exactly when 1 <= L <= 16, leaving 16 - L bytes.
    const auto [err, len] = decrypt_raw(Bytes(16, static_cast<uint8_t>(last)));
    const bool valid = last >= 1 && last <= 16;
    EXPECT_EQ(err, valid ? Error::ok : Error::bad_padding) << last;
    EXPECT_EQ(len, valid ? static_cast<size_t>(16 - last) : 0u) << last;
  }
  for (int pad = 2; pad <= 16; pad++) {
    for (int wrong = 16 - pad; wrong < 15; wrong++) {
      Bytes block(16, static_cast<uint8_t>(pad));
      block[static_cast<size_t>(wrong)] ^= 0x80;  // one padding byte off
      EXPECT_EQ(decrypt_raw(block).first, Error::bad_padding) << pad << " at " << wrong;
    }
  }
}

// Random lengths 0..1024 around every block boundary: streaming split at every point equals
// one-shot, in place equals out of place, and decrypt inverts encrypt.
TEST(Modes, StreamingSplitsAndInPlaceEqualOneShot) {
  const Bytes key = random_bytes(32, 1), iv = random_bytes(16, 2), nonce = random_bytes(12, 3);
  const Bytes aad = random_bytes(37, 4);
  for (size_t len : {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 1000, 1024}) {
    const Bytes msg = random_bytes(len, static_cast<uint32_t>(len));
    // CTR
    Bytes ctr_one(len);
    ctr(key.data(), iv.data(), msg.data(), ctr_one.data(), len);
    Bytes in_place = msg;
    ctr(key.data(), iv.data(), in_place.data(), in_place.data(), len);
    EXPECT_EQ(to_hex(in_place), to_hex(ctr_one));
    // CBC
    Bytes cbc_one(cbc_encrypted_size(len));
    cbc_encrypt(key.data(), iv.data(), msg.data(), len, cbc_one.data());
    Bytes cbc_back = cbc_one;
    size_t n = 0;
    ASSERT_EQ(cbc_decrypt(key.data(), iv.data(), cbc_back.data(), cbc_back.size(), cbc_back.data(), &n), Error::ok);
    EXPECT_EQ(to_hex(Bytes(cbc_back.begin(), cbc_back.begin() + static_cast<long>(n))), to_hex(msg));
    // GCM
    Bytes sealed(len + 16);
    ASSERT_EQ(gcm_seal(key.data(), nonce, aad, msg.data(), len, sealed.data()), Error::ok);
    Bytes opened = sealed;
    ASSERT_EQ(gcm_open(key.data(), nonce, aad, opened.data(), opened.size(), opened.data()), Error::ok);
    EXPECT_EQ(to_hex(Bytes(opened.begin(), opened.begin() + static_cast<long>(len))), to_hex(msg));

    const size_t step = len > 300 ? 37 : 1;
    for (size_t split = 0; split <= len; split += step) {
      SCOPED_TRACE("len " + std::to_string(len) + " split " + std::to_string(split));
      Ctr c;
      c.init(key.data(), iv.data());
      Bytes got(len);
      c.update(msg.data(), got.data(), split);
      c.update(msg.data() + split, got.data() + split, len - split);
      ASSERT_EQ(to_hex(got), to_hex(ctr_one));

      CbcEncryptor e;
      e.init(key.data(), iv.data());
      Bytes enc(cbc_encrypted_size(len));
      size_t w = e.update_size(split);
      ASSERT_EQ(e.update(msg.data(), split, enc.data()), w);
      const size_t w2 = e.update_size(len - split);
      ASSERT_EQ(e.update(msg.data() + split, len - split, enc.data() + w), w2);
      e.final(enc.data() + w + w2);
      ASSERT_EQ(to_hex(enc), to_hex(cbc_one));

      CbcDecryptor d;
      d.init(key.data(), iv.data());
      Bytes dec(cbc_one.size());
      const size_t cut = std::min(split, cbc_one.size());
      size_t r = d.update_size(cut);
      ASSERT_EQ(d.update(cbc_one.data(), cut, dec.data()), r);
      const size_t r2 = d.update_size(cbc_one.size() - cut);
      ASSERT_EQ(d.update(cbc_one.data() + cut, cbc_one.size() - cut, dec.data() + r), r2);
      size_t tail = 0;
      ASSERT_EQ(d.final(dec.data() + r + r2, &tail), Error::ok);
      ASSERT_EQ(to_hex(Bytes(dec.begin(), dec.begin() + static_cast<long>(r + r2 + tail))), to_hex(msg));

      Gcm g;
      ASSERT_EQ(g.init(key.data(), nonce, true), Error::ok);
      const size_t a = std::min(split, aad.size());
      ASSERT_EQ(g.aad(std::span<const uint8_t>(aad).first(a)), Error::ok);
      ASSERT_EQ(g.aad(std::span<const uint8_t>(aad).subspan(a)), Error::ok);
      Bytes gs(len + 16);
      ASSERT_EQ(g.update(msg.data(), gs.data(), split), Error::ok);
      ASSERT_EQ(g.update(msg.data() + split, gs.data() + split, len - split), Error::ok);
      ASSERT_EQ(g.final_tag(gs.data() + len), Error::ok);
      ASSERT_EQ(to_hex(gs), to_hex(sealed));

      Gcm o;
      ASSERT_EQ(o.init(key.data(), nonce, false), Error::ok);
      ASSERT_EQ(o.aad(aad), Error::ok);
      Bytes go(len);
      ASSERT_EQ(o.update(sealed.data(), go.data(), split), Error::ok);
      ASSERT_EQ(o.update(sealed.data() + split, go.data() + split, len - split), Error::ok);
      ASSERT_EQ(o.final_verify(sealed.data() + len), Error::ok);
      ASSERT_EQ(to_hex(go), to_hex(msg));
    }
  }
}

TEST(Gcm, StreamMisuseAndEveryTagBitFlipRejected) {
  const Bytes key(32, 1), nonce(12, 2), msg(40, 3);
  Bytes sealed(56);
  ASSERT_EQ(gcm_seal(key.data(), nonce, {}, msg.data(), msg.size(), sealed.data()), Error::ok);
  for (size_t i = 0; i < sealed.size() * 8; i++) {
    Bytes bad = sealed;
    bad[i / 8] ^= static_cast<uint8_t>(1 << (i % 8));
    Bytes out(40, 0);
    EXPECT_EQ(gcm_open(key.data(), nonce, {}, bad.data(), bad.size(), out.data()), Error::auth_tag) << i;
    EXPECT_EQ(to_hex(out), to_hex(Bytes(40, 0)));
  }
  Gcm g;
  ASSERT_EQ(g.init(key.data(), nonce, true), Error::ok);
  ASSERT_EQ(g.update(msg.data(), sealed.data(), 5), Error::ok);
  EXPECT_EQ(g.aad(msg), Error::stream_state) << "AAD after data";
  uint8_t tag[16];
  EXPECT_EQ(g.final_verify(tag), Error::stream_state) << "verify on an encrypting stream";
  ASSERT_EQ(g.final_tag(tag), Error::ok);
  EXPECT_EQ(g.update(msg.data(), sealed.data(), 1), Error::stream_state) << "used after final";
  Bytes tiny(15);
  EXPECT_EQ(gcm_open(key.data(), nonce, {}, tiny.data(), tiny.size(), tiny.data()), Error::data_length);
}

// One GcmKey sealing and opening many messages (as a Noise transport does) gives the bytes of the
// independent streaming Gcm (and so does a key used once), for every length around the one-shot path's first batch (the tag mask
// and 31 keystream blocks, 496 bytes) and beyond, with 12-byte and other IVs, in place and not; a
// tampered message leaves the output untouched and the key usable.
TEST(Gcm, ReusedKeyMatchesStreamingAtEveryLength) {
  const Bytes key = random_bytes(32, 77);
  GcmKey k;
  k.init(key.data());
  for (size_t len = 0; len <= 560; len++) {
    SCOPED_TRACE("len " + std::to_string(len));
    const Bytes msg = random_bytes(len, static_cast<uint32_t>(len) + 5000);
    const Bytes iv = random_bytes(len % 7 == 3 ? 1 + len % 40 : 12, static_cast<uint32_t>(len) + 9000);
    const Bytes aad = random_bytes(len % 23, static_cast<uint32_t>(len) + 7000);

    Gcm g;
    ASSERT_EQ(g.init(key.data(), iv, true), Error::ok);
    ASSERT_EQ(g.aad(aad), Error::ok);
    Bytes want(len + 16);
    ASSERT_EQ(g.update(msg.data(), want.data(), len), Error::ok);
    ASSERT_EQ(g.final_tag(want.data() + len), Error::ok);

    Bytes sealed(len + 16);
    ASSERT_EQ(gcm_seal(k, iv, aad, msg.data(), len, sealed.data()), Error::ok);
    ASSERT_EQ(to_hex(sealed), to_hex(want));
    Bytes once(len + 16);  // a key used once: H and the tag mask share a batch (12-byte IVs)
    ASSERT_EQ(gcm_seal(key.data(), iv, aad, msg.data(), len, once.data()), Error::ok);
    ASSERT_EQ(to_hex(once), to_hex(want));
    Bytes once_opened(len);
    ASSERT_EQ(gcm_open(key.data(), iv, aad, once.data(), once.size(), once_opened.data()), Error::ok);
    ASSERT_EQ(to_hex(once_opened), to_hex(msg));
    Bytes in_place = msg;
    in_place.resize(len + 16);
    ASSERT_EQ(gcm_seal(k, iv, aad, in_place.data(), len, in_place.data()), Error::ok);
    ASSERT_EQ(to_hex(in_place), to_hex(want));

    Bytes opened(len, 0xAA);
    ASSERT_EQ(gcm_open(k, iv, aad, sealed.data(), sealed.size(), opened.data()), Error::ok);
    ASSERT_EQ(to_hex(opened), to_hex(msg));
    ASSERT_EQ(gcm_open(k, iv, aad, in_place.data(), in_place.size(), in_place.data()), Error::ok);
    ASSERT_EQ(to_hex(Bytes(in_place.begin(), in_place.begin() + static_cast<long>(len))), to_hex(msg));

    Bytes bad = sealed;
    bad[(len * 7) % bad.size()] ^= 0x10;
    Bytes untouched(len, 0xAA);
    ASSERT_EQ(gcm_open(k, iv, aad, bad.data(), bad.size(), untouched.data()), Error::auth_tag);
    ASSERT_EQ(to_hex(untouched), to_hex(Bytes(len, 0xAA)));
  }
  EXPECT_EQ(gcm_seal(k, {}, {}, nullptr, 0, nullptr), Error::iv_length);
  k.wipe();
}

}  // namespace
}  // namespace wacore::aes
