// Known answers every machine has: NIST CAVP (AES-256 CBC and GCM, SHA-256/512), RFC 3686 (CTR),
// RFC 4231 (HMAC), RFC 5869 (HKDF), RFC 7748 (X25519) and RFC 8032's Ed25519 list, read from
// Debian's python3-cryptography-vectors (test::cavp_dir()). Each test also pins how many cases it
// ran, so a file that stops parsing fails instead of passing on nothing.
#include <sodium.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "crypto/aes_modes.h"
#include "crypto/curve25519.h"
#include "crypto/hash.h"
#include "test_util.h"

namespace wacore {
namespace {

using test::Bytes;
using test::from_hex;
using test::KatRecord;
using test::read_kat;
using test::to_hex;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}
Bytes hex_field(const KatRecord& r, const std::string& k) { return from_hex(r.at(k)); }

// CBC without padding, through the streaming encryptor (which writes whole blocks only).
Bytes cbc_raw_encrypt(const Bytes& key, const Bytes& iv, const Bytes& plain) {
  aes::CbcEncryptor e;
  e.init(key.data(), iv.data());
  Bytes out(e.update_size(plain.size()));
  EXPECT_EQ(e.update(plain.data(), plain.size(), out.data()), out.size());
  e.wipe();
  return out;
}

// CBC decryption of unpadded blocks through the padded one-shot decryptor: one more block that
// decrypts to sixteen 0x10 bytes (a full padding block) is appended first.
Bytes cbc_raw_decrypt(const Bytes& key, const Bytes& iv, const Bytes& ct) {
  const Bytes last(ct.end() - 16, ct.end());
  Bytes padded = ct;
  const Bytes pad_block = cbc_raw_encrypt(key, last, Bytes(16, 16));
  padded.insert(padded.end(), pad_block.begin(), pad_block.end());
  Bytes out(padded.size());
  size_t n = 0;
  EXPECT_EQ(aes::cbc_decrypt(key.data(), iv.data(), padded.data(), padded.size(), out.data(), &n), Error::ok);
  out.resize(n);
  return out;
}

TEST(Kat, AesCbc256AllCavpFiles) {
  int encrypt = 0, decrypt = 0;
  for (const char* file : {"CBCGFSbox256.rsp", "CBCKeySbox256.rsp", "CBCVarKey256.rsp", "CBCVarTxt256.rsp",
                           "CBCMMT256.rsp"}) {
    for (const auto& r : read_kat(std::string("ciphers/AES/CBC/") + file)) {
      SCOPED_TRACE(std::string(file) + " COUNT " + r.at("COUNT"));
      const Bytes key = hex_field(r, "KEY"), iv = hex_field(r, "IV");
      const Bytes pt = hex_field(r, "PLAINTEXT"), ct = hex_field(r, "CIPHERTEXT");
      // Both directions for every case; the file's section says which one NIST computed.
      EXPECT_EQ(to_hex(cbc_raw_encrypt(key, iv, pt)), to_hex(ct));
      EXPECT_EQ(to_hex(cbc_raw_decrypt(key, iv, ct)), to_hex(pt));
      (r.section.count("ENCRYPT") ? encrypt : decrypt)++;
    }
  }
  EXPECT_EQ(encrypt, 415);
  EXPECT_EQ(decrypt, 415);
}

TEST(Kat, AesCtr256Rfc3686) {
  int n = 0;
  for (const auto& r : read_kat("ciphers/AES/CTR/aes-256-ctr.txt")) {
    const Bytes key = hex_field(r, "KEY"), iv = hex_field(r, "IV"), pt = hex_field(r, "PLAINTEXT");
    Bytes out(pt.size());
    aes::ctr(key.data(), iv.data(), pt.data(), out.data(), out.size());
    EXPECT_EQ(to_hex(out), lower(r.at("CIPHERTEXT"))) << r.at("COUNT");
    n++;
  }
  EXPECT_EQ(n, 3);
}

// Every 256-bit case with a 96-bit IV and a 128-bit tag (the only forms the API takes).
TEST(Kat, AesGcm256CavpEncryptAndDecrypt) {
  const auto ours = [](const KatRecord& r) {
    return r.section.at("Keylen") == "256" && r.section.at("IVlen") == "96" && r.section.at("Taglen") == "128";
  };
  int sealed = 0;
  for (const auto& r : read_kat("ciphers/AES/GCM/gcmEncryptExtIV256.rsp")) {
    if (!ours(r)) continue;
    SCOPED_TRACE("encrypt Count " + r.at("Count"));
    const Bytes key = hex_field(r, "Key"), iv = hex_field(r, "IV"), aad = hex_field(r, "AAD");
    const Bytes pt = hex_field(r, "PT");
    Bytes out(pt.size() + 16);
    ASSERT_EQ(aes::gcm_seal(key.data(), iv, aad, pt.data(), pt.size(), out.data()), Error::ok);
    EXPECT_EQ(to_hex(out), r.at("CT") + r.at("Tag"));
    sealed++;
  }
  int opened = 0, refused = 0;
  for (const auto& r : read_kat("ciphers/AES/GCM/gcmDecrypt256.rsp")) {
    if (!ours(r)) continue;
    SCOPED_TRACE("decrypt Count " + r.at("Count"));
    const Bytes key = hex_field(r, "Key"), iv = hex_field(r, "IV"), aad = hex_field(r, "AAD");
    const Bytes in = from_hex(r.at("CT") + r.at("Tag"));
    Bytes out(in.size() - 16, 0xAA);
    const Error e = aes::gcm_open(key.data(), iv, aad, in.data(), in.size(), out.data());
    if (r.has("FAIL")) {
      EXPECT_EQ(e, Error::auth_tag);
      EXPECT_EQ(to_hex(out), to_hex(Bytes(out.size(), 0xAA))) << "no plaintext on failure";
      refused++;
    } else {
      ASSERT_EQ(e, Error::ok);
      EXPECT_EQ(to_hex(out), r.at("PT"));
      opened++;
    }
  }
  EXPECT_EQ(sealed, 375);
  EXPECT_EQ(opened + refused, 375);
  EXPECT_EQ(refused, 191);
}

TEST(Kat, Sha256AndSha512ShortAndLongMessages) {
  int n = 0;
  for (const char* file : {"SHA256ShortMsg.rsp", "SHA256LongMsg.rsp", "SHA512ShortMsg.rsp", "SHA512LongMsg.rsp"}) {
    const bool is512 = std::string(file).starts_with("SHA512");
    for (const auto& r : read_kat(std::string("hashes/SHA2/") + file)) {
      Bytes msg = hex_field(r, "Msg");
      if (r.at("Len") == "0") msg.clear();  // the files write the empty message as "00"
      ASSERT_EQ(msg.size() * 8, std::stoul(r.at("Len")));
      uint8_t md[64];
      if (is512) {
        hash::sha512(msg, md);
      } else {
        hash::sha256(msg, md);
      }
      EXPECT_EQ(to_hex(md, is512 ? 64 : 32), r.at("MD")) << file << " Len " << r.at("Len");
      n++;
    }
  }
  EXPECT_EQ(n, 65 + 64 + 129 + 128);
}

TEST(Kat, HmacRfc4231) {
  int n = 0;
  for (const bool is512 : {false, true}) {
    for (const auto& r : read_kat(is512 ? "HMAC/rfc-4231-sha512.txt" : "HMAC/rfc-4231-sha256.txt")) {
      const Bytes key = hex_field(r, "Key"), msg = hex_field(r, "Msg");
      uint8_t mac[64];
      if (is512) {
        hash::hmac_sha512(key, msg, mac);
      } else {
        hash::hmac_sha256(key, msg, mac);
      }
      EXPECT_EQ(to_hex(mac, is512 ? 64 : 32), r.at("MD"));
      n++;
    }
  }
  EXPECT_EQ(n, 12);
}

TEST(Kat, HkdfSha256Rfc5869AndALongOutput) {
  int n = 0;
  for (const char* file : {"KDF/rfc-5869-HKDF-SHA256.txt", "KDF/hkdf-generated.txt"}) {
    for (const auto& r : read_kat(file)) {
      ASSERT_EQ(r.at("Hash"), "SHA-256");
      const Bytes ikm = hex_field(r, "IKM"), salt = hex_field(r, "salt"), info = hex_field(r, "info");
      const size_t len = std::stoul(r.at("L"));
      if (r.has("PRK")) {
        uint8_t prk[32];
        hash::hkdf_extract(salt, ikm, prk);
        EXPECT_EQ(to_hex(prk, 32), r.at("PRK"));
      }
      Bytes okm(len);
      ASSERT_EQ(hash::hkdf(ikm, salt, info, okm), Error::ok);
      EXPECT_EQ(to_hex(okm), r.at("OKM")) << file << " COUNT " << r.at("COUNT");
      n++;
    }
  }
  EXPECT_EQ(n, 4);
}

TEST(Kat, X25519Rfc7748) {
  int n = 0;
  for (const auto& r : read_kat("asymmetric/X25519/rfc7748.txt")) {
    const Bytes scalar = hex_field(r, "INPUT_SCALAR"), u = hex_field(r, "INPUT_U");
    uint8_t out[32];
    ASSERT_EQ(curve::agreement(u.data(), scalar.data(), out), Error::ok);
    EXPECT_EQ(to_hex(out, 32), r.at("OUTPUT_U")) << r.at("COUNT");
    n++;
  }
  EXPECT_EQ(n, 3);
}

// RFC 8032's Ed25519 list (1,024 keys and messages, the file "sign.input"). XEdDSA verification is
// Ed25519 verification with the Edwards key rebuilt from the Montgomery u and the sign bit that
// travels in bit 7 of the signature's last byte; so each Ed25519 signature, with that bit set from
// its key, must verify under the key's u. Our signatures made with the key's clamped scalar verify
// under plain Ed25519 (libsodium's) once the bit is cleared. The Montgomery form of the key is
// what our derivation gives for the same scalar.
TEST(Kat, Ed25519Rfc8032ListThroughXeddsa) {
  const std::string path = test::cavp_dir() + "/asymmetric/Ed25519/sign.input";
  FILE* f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr) << "cannot open " << path;
  char buf[1 << 16];
  int n = 0;
  while (std::fgets(buf, sizeof buf, f) != nullptr) {
    std::string line(buf);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    std::vector<std::string> parts;
    for (size_t at = 0;;) {
      const size_t colon = line.find(':', at);
      parts.push_back(line.substr(at, colon - at));
      if (colon == std::string::npos) break;
      at = colon + 1;
    }
    ASSERT_GE(parts.size(), 4u);
    const Bytes sk = from_hex(parts[0]), pk = from_hex(parts[1]), msg = from_hex(parts[2]);
    Bytes sig = from_hex(parts[3].substr(0, 128));
    SCOPED_TRACE("line " + std::to_string(n + 1));

    uint8_t u[32];
    ASSERT_EQ(crypto_sign_ed25519_pk_to_curve25519(u, pk.data()), 0);
    uint8_t h[64], scalar[32];
    crypto_hash_sha512(h, sk.data(), 32);
    std::memcpy(scalar, h, 32);
    curve::clamp(scalar);
    uint8_t derived[32];
    ASSERT_EQ(curve::public_from_private(scalar, derived), Error::ok);
    EXPECT_EQ(to_hex(derived, 32), to_hex(u, 32));

    ASSERT_EQ(sig[63] & 0xE0, 0) << "S < 2^253";
    sig[63] |= pk[31] & 0x80;
    EXPECT_TRUE(curve::verify(u, msg, sig.data()));
    Bytes other = msg;
    other.push_back(0);
    EXPECT_FALSE(curve::verify(u, other, sig.data()));

    if (n % 8 == 0) {  // signing costs a fixed-base multiplication; an eighth of the list suffices
      uint8_t ours[64], z[64];
      for (int i = 0; i < 64; i++) z[i] = static_cast<uint8_t>(n + i);
      curve::sign_with_random(scalar, msg, z, ours);
      EXPECT_EQ(ours[63] & 0x80, pk[31] & 0x80);
      ours[63] &= 0x7F;
      EXPECT_EQ(crypto_sign_ed25519_verify_detached(ours, msg.data(), msg.size(), pk.data()), 0);
    }
    n++;
  }
  std::fclose(f);
  EXPECT_EQ(n, 1024);
}

}  // namespace
}  // namespace wacore
