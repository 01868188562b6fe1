// AES-256 block layer: the bitsliced S-boxes against GF(2^8) arithmetic, FIPS-197 and SP 800-38A
// vectors, a table-based reference AES written here from FIPS-197, and byte-for-byte agreement of
// the 64-bit, two-lane and build-default forms at every block count around the batch sizes.
#include "crypto/aes.h"
#include "crypto/aes_byteslice.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "test_util.h"

namespace wacore::aes {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

// -------------------------------------------------------------------------------------------------
// Reference arithmetic. Tables are fine here: this is the test's independent model, not the
// product.

uint8_t xtime(uint8_t a) { return static_cast<uint8_t>((a << 1) ^ ((a & 0x80) ? 0x1B : 0x00)); }

// Product in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (0x11B).
uint8_t gf_mul(uint8_t a, uint8_t b) {
  uint8_t r = 0;
  for (; b != 0; b >>= 1, a = xtime(a)) {
    if (b & 1) r ^= a;
  }
  return r;
}

// a^254, which is a^-1 for a != 0 and 0 for a = 0, as the S-box defines.
uint8_t gf_inverse(uint8_t a) {
  uint8_t r = 1;
  for (int i = 0; i < 254; i++) r = gf_mul(r, a);
  return r;
}

uint8_t rotl8(uint8_t x, int n) { return static_cast<uint8_t>((x << n) | (x >> (8 - n))); }

struct SboxTables {
  std::array<uint8_t, 256> forward{};
  std::array<uint8_t, 256> inverse{};
};

// FIPS-197 5.1.1: inverse in GF(2^8), then the affine map b ^ rotl(b,1..4) ^ 0x63.
const SboxTables& sbox_tables() {
  static const SboxTables t = [] {
    SboxTables s;
    for (int x = 0; x < 256; x++) {
      const uint8_t b = gf_inverse(static_cast<uint8_t>(x));
      const uint8_t y =
          static_cast<uint8_t>(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ 0x63);
      s.forward[x] = y;
      s.inverse[y] = static_cast<uint8_t>(x);
    }
    return s;
  }();
  return t;
}

// Straightforward byte-oriented AES-256 from FIPS-197 (Cipher, InvCipher, KeyExpansion).
class ReferenceAes256 {
 public:
  explicit ReferenceAes256(const uint8_t* key) {
    const auto& s = sbox_tables().forward;
    uint8_t w[60][4];
    std::memcpy(w, key, 32);
    uint8_t rcon = 1;
    for (int i = 8; i < 60; i++) {
      uint8_t t[4];
      std::memcpy(t, w[i - 1], 4);
      if (i % 8 == 0) {
        const uint8_t t0 = t[0];
        t[0] = static_cast<uint8_t>(s[t[1]] ^ rcon);
        t[1] = s[t[2]];
        t[2] = s[t[3]];
        t[3] = s[t0];
        rcon = xtime(rcon);
      } else if (i % 8 == 4) {
        for (auto& v : t) v = s[v];
      }
      for (int j = 0; j < 4; j++) w[i][j] = w[i - 8][j] ^ t[j];
    }
    std::memcpy(rk_, w, sizeof rk_);
  }

  void encrypt(const uint8_t* in, uint8_t* out) const {
    uint8_t st[16];
    std::memcpy(st, in, 16);
    add_round_key(st, 0);
    for (int r = 1; r <= 14; r++) {
      for (auto& v : st) v = sbox_tables().forward[v];
      shift_rows(st, 1);
      if (r != 14) mix_columns(st, {2, 3, 1, 1});
      add_round_key(st, r);
    }
    std::memcpy(out, st, 16);
  }

  void decrypt(const uint8_t* in, uint8_t* out) const {
    uint8_t st[16];
    std::memcpy(st, in, 16);
    add_round_key(st, 14);
    for (int r = 13; r >= 0; r--) {
      shift_rows(st, 3);
      for (auto& v : st) v = sbox_tables().inverse[v];
      add_round_key(st, r);
      if (r != 0) mix_columns(st, {0x0e, 0x0b, 0x0d, 0x09});
    }
    std::memcpy(out, st, 16);
  }

 private:
  void add_round_key(uint8_t st[16], int r) const {
    for (int i = 0; i < 16; i++) st[i] ^= rk_[r][i];
  }
  // Row r moves n*r columns to the left (n = 1: ShiftRows, n = 3: InvShiftRows).
  static void shift_rows(uint8_t st[16], int n) {
    uint8_t t[16];
    for (int c = 0; c < 4; c++) {
      for (int r = 0; r < 4; r++) t[4 * c + r] = st[4 * ((c + n * r) % 4) + r];
    }
    std::memcpy(st, t, 16);
  }
  // Each column times the circulant matrix with first row m.
  static void mix_columns(uint8_t st[16], std::array<uint8_t, 4> m) {
    for (int c = 0; c < 4; c++) {
      uint8_t col[4];
      std::memcpy(col, st + 4 * c, 4);
      for (int r = 0; r < 4; r++) {
        uint8_t v = 0;
        for (int j = 0; j < 4; j++) v ^= gf_mul(m[j], col[(r + j) % 4]);
        st[4 * c + r] = v;
      }
    }
  }

  uint8_t rk_[15][16];
};

// -------------------------------------------------------------------------------------------------
// The three forms under test.

using BlocksFn = void (*)(const Key&, const uint8_t*, uint8_t*, size_t) noexcept;

struct Form {
  const char* name;
  BlocksFn encrypt;
  BlocksFn decrypt;
};

const Form kForms[] = {
    {"u64", detail::encrypt_blocks_u64, detail::decrypt_blocks_u64},
    {"pair", detail::encrypt_blocks_pair, detail::decrypt_blocks_pair},
    {"build", encrypt_blocks, decrypt_blocks},
};

Key expanded(const Bytes& key) {
  EXPECT_EQ(key.size(), kKeyBytes);
  Key k;
  expand_key(k, key.data());
  return k;
}

Bytes random_bytes(std::mt19937_64& rng, size_t n) {
  Bytes b(n);
  for (auto& v : b) v = static_cast<uint8_t>(rng());
  return b;
}

Bytes reference_ecb(const Bytes& key, const Bytes& in, bool encrypt) {
  const ReferenceAes256 ref(key.data());
  Bytes out(in.size());
  for (size_t i = 0; i < in.size(); i += kBlockBytes) {
    if (encrypt) {
      ref.encrypt(in.data() + i, out.data() + i);
    } else {
      ref.decrypt(in.data() + i, out.data() + i);
    }
  }
  return out;
}

// -------------------------------------------------------------------------------------------------
// S-boxes.

TEST(AesSbox, ReferenceTableHasFips197KnownValues) {
  const auto& t = sbox_tables();
  EXPECT_EQ(t.forward[0x00], 0x63);
  EXPECT_EQ(t.forward[0x53], 0xED);  // FIPS-197 5.1.1 example
  EXPECT_EQ(t.forward[0xFF], 0x16);
  EXPECT_EQ(t.inverse[0x63], 0x00);
}

// Every byte value at every byte position of a batch (256 rotations of the sequence 0, 1, .., 255).
template <size_t kBatchBytes>
void check_sub_bytes(void (*fn)(uint8_t*) noexcept, const std::array<uint8_t, 256>& want) {
  for (int shift = 0; shift < 256; shift++) {
    for (int start = 0; start < 256; start += static_cast<int>(kBatchBytes)) {
      uint8_t batch[kBatchBytes];
      for (size_t i = 0; i < kBatchBytes; i++) batch[i] = static_cast<uint8_t>(start + i + shift);
      fn(batch);
      for (size_t i = 0; i < kBatchBytes; i++) {
        const uint8_t x = static_cast<uint8_t>(start + i + shift);
        ASSERT_EQ(batch[i], want[x]) << "input " << int{x} << " at position " << i;
      }
    }
  }
}

TEST(AesSbox, BitslicedForwardCircuitIsGf256InverseThenAffineMap) {
  check_sub_bytes<kBlockBytes * detail::kBatchU64>(detail::sub_bytes_u64, sbox_tables().forward);
  check_sub_bytes<kBlockBytes * detail::kBatchPair>(detail::sub_bytes_pair, sbox_tables().forward);
}

TEST(AesSbox, BitslicedInverseCircuitIsTheInverseOfTheSbox) {
  check_sub_bytes<kBlockBytes * detail::kBatchU64>(detail::inv_sub_bytes_u64,
                                                   sbox_tables().inverse);
  check_sub_bytes<kBlockBytes * detail::kBatchPair>(detail::inv_sub_bytes_pair,
                                                    sbox_tables().inverse);
}

// -------------------------------------------------------------------------------------------------
// Known answers.

// FIPS-197 Appendix C.3, AES-256.
TEST(Aes256, Fips197AppendixC3EncryptsAndDecryptsInEveryForm) {
  const Bytes key = from_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  const Bytes pt = from_hex("00112233445566778899aabbccddeeff");
  const std::string ct = "8ea2b7ca516745bfeafc49904b496089";
  EXPECT_EQ(to_hex(reference_ecb(key, pt, true)), ct);  // the model agrees with the standard too
  const Key k = expanded(key);
  for (const Form& f : kForms) {
    SCOPED_TRACE(f.name);
    Bytes out(16), back(16);
    f.encrypt(k, pt.data(), out.data(), 1);
    EXPECT_EQ(to_hex(out), ct);
    f.decrypt(k, out.data(), back.data(), 1);
    EXPECT_EQ(to_hex(back), to_hex(pt));
  }
}

// NIST SP 800-38A F.1.5 (ECB-AES256.Encrypt) and F.1.6 (ECB-AES256.Decrypt). Block 4's ciphertext
// was also checked with `openssl enc -aes-256-ecb` and pyca/cryptography.
TEST(Aes256, Sp800_38aEcbVectorsEncryptAndDecryptInEveryForm) {
  const Bytes key = from_hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
  const Bytes pt = from_hex(
      "6bc1bee22e409f96e93d7e117393172a"
      "ae2d8a571e03ac9c9eb76fac45af8e51"
      "30c81c46a35ce411e5fbc1191a0a52ef"
      "f69f2445df4f9b17ad2b417be66c3710");
  const std::string ct =
      "f3eed1bdb5d2a03c064b5a7e3db181f8"
      "591ccb10d410ed26dc5ba74a31362870"
      "b6ed21b99ca6f4f9f153e7b1beafed1d"
      "23304b7a39f9f3ff067d8d8f9e24ecc7";
  EXPECT_EQ(to_hex(reference_ecb(key, pt, true)), ct);
  const Key k = expanded(key);
  for (const Form& f : kForms) {
    SCOPED_TRACE(f.name);
    Bytes out(pt.size()), back(pt.size());
    f.encrypt(k, pt.data(), out.data(), 4);
    EXPECT_EQ(to_hex(out), ct);
    f.decrypt(k, out.data(), back.data(), 4);
    EXPECT_EQ(to_hex(back), to_hex(pt));
    // One block at a time gives the same bytes (each call pads its own batch).
    for (size_t b = 0; b < 4; b++) {
      f.encrypt(k, pt.data() + 16 * b, out.data() + 16 * b, 1);
    }
    EXPECT_EQ(to_hex(out), ct);
  }
}

// -------------------------------------------------------------------------------------------------
// Properties.

// Counts 0..40 cover empty input, partial and whole batches of 4 and 8, and several batches plus
// every tail length; the large ones cover long runs.
std::vector<size_t> block_counts() {
  std::vector<size_t> counts;
  for (size_t n = 0; n <= 40; n++) counts.push_back(n);
  for (size_t n : {63, 64, 65, 127, 255, 256, 257, 1023}) counts.push_back(n);
  return counts;
}

TEST(Aes256, AllFormsMatchTheReferenceOutOfPlaceAndInPlaceAtEveryCount) {
  std::mt19937_64 rng(0x5eed0001);
  for (size_t n : block_counts()) {
    SCOPED_TRACE("blocks " + std::to_string(n));
    const Bytes key = random_bytes(rng, kKeyBytes);
    const Key k = expanded(key);
    const Bytes pt = random_bytes(rng, n * kBlockBytes);
    const Bytes want_ct = reference_ecb(key, pt, true);
    const Bytes want_pt = reference_ecb(key, pt, false);  // decryption of arbitrary input, too
    for (const Form& f : kForms) {
      SCOPED_TRACE(f.name);
      Bytes out(pt.size());
      f.encrypt(k, pt.data(), out.data(), n);
      ASSERT_EQ(out, want_ct);
      Bytes back(pt.size());
      f.decrypt(k, out.data(), back.data(), n);
      ASSERT_EQ(back, pt);
      f.decrypt(k, pt.data(), out.data(), n);
      ASSERT_EQ(out, want_pt);

      Bytes inplace = pt;
      f.encrypt(k, inplace.data(), inplace.data(), n);
      ASSERT_EQ(inplace, want_ct);
      f.decrypt(k, inplace.data(), inplace.data(), n);
      ASSERT_EQ(inplace, pt);
    }
  }
}

TEST(Aes256, RandomKeysAndBlocksMatchTheTableBasedReference) {
  std::mt19937_64 rng(0x5eed0002);
  for (int trial = 0; trial < 200; trial++) {
    const Bytes key = random_bytes(rng, kKeyBytes);
    const Key k = expanded(key);
    const size_t n = 1 + rng() % 24;
    const Bytes in = random_bytes(rng, n * kBlockBytes);
    for (const Form& f : kForms) {
      Bytes out(in.size());
      f.encrypt(k, in.data(), out.data(), n);
      ASSERT_EQ(out, reference_ecb(key, in, true)) << f.name << " trial " << trial;
      f.decrypt(k, in.data(), out.data(), n);
      ASSERT_EQ(out, reference_ecb(key, in, false)) << f.name << " trial " << trial;
    }
  }
}

// Keys with structure a random draw never produces.
TEST(Aes256, ExtremeKeysAndDataMatchTheReference) {
  std::vector<Bytes> keys = {Bytes(32, 0x00), Bytes(32, 0xFF), Bytes(32, 0x63)};
  Bytes counting(32);
  for (size_t i = 0; i < counting.size(); i++) counting[i] = static_cast<uint8_t>(0xF0 + i);
  keys.push_back(counting);
  Bytes data(16 * 9);
  for (size_t i = 0; i < data.size(); i++)
    data[i] = static_cast<uint8_t>(i < 16 ? 0x00 : i < 32 ? 0xFF : i * 37);
  for (const Bytes& key : keys) {
    const Key k = expanded(key);
    for (const Form& f : kForms) {
      Bytes out(data.size());
      f.encrypt(k, data.data(), out.data(), 9);
      EXPECT_EQ(out, reference_ecb(key, data, true)) << f.name << " key " << to_hex(key);
      f.decrypt(k, data.data(), out.data(), 9);
      EXPECT_EQ(out, reference_ecb(key, data, false)) << f.name << " key " << to_hex(key);
    }
  }
}

// Unaligned pointers and tails: nothing before `out` or after its n blocks is written.
TEST(Aes256, WritesExactlyTheRequestedBlocksAtAnyAlignment) {
  std::mt19937_64 rng(0x5eed0003);
  const Bytes key = random_bytes(rng, kKeyBytes);
  const Key k = expanded(key);
  constexpr size_t kGuard = 24;
  for (size_t n : {0, 1, 3, 5, 7, 9, 13}) {
    for (size_t offset : {0, 1, 3, 8}) {
      const Bytes pt = random_bytes(rng, n * kBlockBytes);
      Bytes in(offset);
      in.insert(in.end(), pt.begin(), pt.end());
      for (const Form& f : kForms) {
        Bytes out(kGuard + offset + pt.size() + kGuard, 0xA5);
        f.encrypt(k, in.data() + offset, out.data() + kGuard + offset, n);
        for (size_t i = 0; i < kGuard + offset; i++) ASSERT_EQ(out[i], 0xA5) << f.name;
        for (size_t i = kGuard + offset + pt.size(); i < out.size(); i++) ASSERT_EQ(out[i], 0xA5);
        ASSERT_EQ(Bytes(out.begin() + kGuard + offset, out.end() - kGuard),
                  reference_ecb(key, pt, true))
            << f.name << " n " << n << " offset " << offset;
      }
    }
  }
}

TEST(AesKey, ExpandedKeyIsPlainDataAndWipeZeroesIt) {
  static_assert(std::is_trivially_copyable_v<Key> && std::is_standard_layout_v<Key>);
  const Bytes key = from_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  Key k = expanded(key);
  Key copy;
  std::memcpy(&copy, &k, sizeof k);
  const Bytes pt = from_hex("00112233445566778899aabbccddeeff");
  Bytes out(16);
  encrypt_blocks(copy, pt.data(), out.data(), 1);
  EXPECT_EQ(to_hex(out), "8ea2b7ca516745bfeafc49904b496089");

  wipe(k);
  const Bytes zeros(sizeof k, 0);
  EXPECT_EQ(std::memcmp(&k, zeros.data(), sizeof k), 0);
}

TEST(AesKey, ExpansionDependsOnEveryKeyBit) {
  const Bytes base(32, 0x00);
  const Key k0 = expanded(base);
  const Bytes block(16, 0x00);
  Bytes c0(16);
  encrypt_blocks(k0, block.data(), c0.data(), 1);
  for (size_t bit = 0; bit < 256; bit++) {
    Bytes key = base;
    key[bit / 8] ^= static_cast<uint8_t>(1 << (bit % 8));
    const Key k = expanded(key);
    Bytes c(16);
    encrypt_blocks(k, block.data(), c.data(), 1);
    EXPECT_NE(c, c0) << "key bit " << bit;
    EXPECT_EQ(c, reference_ecb(key, block, true)) << "key bit " << bit;
  }
}

// -------------------------------------------------------------------------------------------------
// The byte-sliced one-block form (aes_byteslice.h), which the SIMD build uses for CBC encryption:
// its portable twin computes what the v128 form computes, so it is checked here against the model.

// CBC by the model: each block XORed with the previous ciphertext, then encrypted.
Bytes reference_cbc(const Bytes& key, Bytes chain, const Bytes& in) {
  Bytes out;
  for (size_t i = 0; i < in.size(); i += kBlockBytes) {
    for (size_t j = 0; j < kBlockBytes; j++) chain[j] ^= in[i + j];
    chain = reference_ecb(key, chain, true);
    out.insert(out.end(), chain.begin(), chain.end());
  }
  return out;
}

TEST(AesByteslice, Fips197AppendixC3AndSp800_38aCbc) {
  byteslice::Key k;
  byteslice::detail::expand_key_portable(k, from_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f").data());
  Bytes chain(16, 0), out(16);
  byteslice::detail::cbc_encrypt_blocks_portable(k, chain.data(), from_hex("00112233445566778899aabbccddeeff").data(),
                                                 out.data(), 1);
  EXPECT_EQ(to_hex(out), "8ea2b7ca516745bfeafc49904b496089");
  EXPECT_EQ(chain, out);
  // SP 800-38A F.2.5 (CBC-AES256.Encrypt).
  byteslice::detail::expand_key_portable(k, from_hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4").data());
  chain = from_hex("000102030405060708090a0b0c0d0e0f");
  const Bytes pt = from_hex(
      "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
      "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710");
  out.resize(pt.size());
  byteslice::detail::cbc_encrypt_blocks_portable(k, chain.data(), pt.data(), out.data(), 4);
  EXPECT_EQ(to_hex(out),
            "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
            "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b");
}

TEST(AesByteslice, RandomKeysAndMessagesMatchTheModelInPlaceAndOut) {
  std::mt19937_64 rng(0x5eed0003);
  for (size_t n = 0; n <= 40; n++) {
    const Bytes key = random_bytes(rng, kKeyBytes), iv = random_bytes(rng, kBlockBytes);
    const Bytes pt = random_bytes(rng, n * kBlockBytes);
    const Bytes want = reference_cbc(key, iv, pt);
    byteslice::Key k;
    byteslice::detail::expand_key_portable(k, key.data());
    Bytes chain = iv, out(pt.size());
    byteslice::detail::cbc_encrypt_blocks_portable(k, chain.data(), pt.data(), out.data(), n);
    ASSERT_EQ(out, want) << n;
    ASSERT_EQ(chain, n == 0 ? iv : Bytes(want.end() - 16, want.end())) << n;
    Bytes inplace = pt;
    chain = iv;
    byteslice::detail::cbc_encrypt_blocks_portable(k, chain.data(), inplace.data(), inplace.data(), n);
    ASSERT_EQ(inplace, want) << n;
    byteslice::wipe(k);
    for (const auto& row : k.rk) {
      for (uint8_t b : row) ASSERT_EQ(b, 0);
    }
  }
}

// Proves which implementation the native build runs: the 64-bit words, 4 blocks per batch.
TEST(AesBuild, NativeBuildRunsTheSixtyFourBitForm) {
#if defined(__wasm_simd128__)
  EXPECT_EQ(kParallelBlocks, 8u);
#else
  EXPECT_EQ(kParallelBlocks, detail::kBatchU64);
#endif
}

}  // namespace
}  // namespace wacore::aes
