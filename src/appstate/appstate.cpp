#include "appstate/appstate.h"

#include <sodium.h>

#include <cstring>

#include "common/bytes.h"
#include "crypto/aes_modes.h"
#include "crypto/hash.h"
#include "crypto/sha256x4.h"

namespace wacore::appstate {
namespace {

using Bytes = std::span<const uint8_t>;

Bytes text(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

void be64(uint8_t out[8], uint64_t v) {
  for (int i = 7; i >= 0; i--) {
    out[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

// HKDF-SHA256(mac, no salt, "WhatsApp Patch Integrity", 128) of up to four MACs at once.
//
// Every expansion is the same fixed sequence of 15 SHA-256 compressions on messages of the same
// lengths, so four of them run in lockstep on 4-lane words (one v128 per word in the SIMD build):
//   PRK  = HMAC(key = 32 zero bytes, mac):      inner 1 block (+ the constant ipad block), outer 1
//   HMAC(PRK, ...) key setup:                   ipad block, opad block
//   T1   = HMAC(PRK, info || 01):               inner 1 block, outer 1
//   Ti   = HMAC(PRK, T(i-1) || info || i), i=2..4: inner 2 blocks, outer 1
// The states after the zero key's ipad and opad blocks are the same for every MAC and made once.
using sha256x4::Lanes;

struct ExpandConstants {
  uint32_t inner_zero[8], outer_zero[8], info[6];
  ExpandConstants() {
    uint32_t pad[16];
    for (int i = 0; i < 8; i++) inner_zero[i] = outer_zero[i] = sha256x4::kInitialState[i];
    for (auto& w : pad) w = 0x36363636;
    sha256x4::compress1(inner_zero, pad);
    for (auto& w : pad) w = 0x5c5c5c5c;
    sha256x4::compress1(outer_zero, pad);
    static_assert(kPatchIntegrityInfo.size() == 24);
    for (int i = 0; i < 6; i++) {
      info[i] = static_cast<uint32_t>(static_cast<uint8_t>(kPatchIntegrityInfo[4 * i])) << 24 |
                static_cast<uint32_t>(static_cast<uint8_t>(kPatchIntegrityInfo[4 * i + 1])) << 16 |
                static_cast<uint32_t>(static_cast<uint8_t>(kPatchIntegrityInfo[4 * i + 2])) << 8 |
                static_cast<uint32_t>(static_cast<uint8_t>(kPatchIntegrityInfo[4 * i + 3]));
    }
  }
};

constexpr uint32_t kBlockBits = 512;
constexpr uint32_t kEnd = 0x80000000;  // the padding's first byte, at the start of a word

// Outer HMAC step: state (from the opad state) absorbs the inner hash, padded as a 96-byte message.
void outer(Lanes state[8], const Lanes inner[8]) {
  Lanes b[16];
  for (int i = 0; i < 8; i++) b[i] = inner[i];
  b[8] = sha256x4::splat(kEnd);
  for (int i = 9; i < 15; i++) b[i] = sha256x4::splat(0);
  b[15] = sha256x4::splat(kBlockBits + 256);
  sha256x4::compress(state, b);
}

void expand_macs(const uint8_t* macs, size_t n, uint8_t out[][kLtHashBytes]) {
  static const ExpandConstants kc;
  Lanes b[16], s[8], is[8], os[8], t[8], inner[8];
  const auto splat8 = [](Lanes dst[8], const uint32_t src[8]) {
    for (int i = 0; i < 8; i++) dst[i] = sha256x4::splat(src[i]);
  };
  // PRK: inner hash of the MAC after the zero key's ipad block, then the outer hash.
  for (int w = 0; w < 8; w++) {
    uint32_t lanes[4] = {};
    for (size_t l = 0; l < n; l++) {
      const uint8_t* p = macs + 32 * l + 4 * w;
      lanes[l] = static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
                 static_cast<uint32_t>(p[2]) << 8 | p[3];
    }
    b[w] = sha256x4::make(lanes);
  }
  b[8] = sha256x4::splat(kEnd);
  for (int i = 9; i < 15; i++) b[i] = sha256x4::splat(0);
  b[15] = sha256x4::splat(kBlockBits + 256);
  splat8(inner, kc.inner_zero);
  sha256x4::compress(inner, b);
  splat8(s, kc.outer_zero);
  outer(s, inner);  // s = PRK
  // HMAC(PRK, ...): the ipad and opad states.
  for (int pass = 0; pass < 2; pass++) {
    const uint32_t pad = pass == 0 ? 0x36363636 : 0x5c5c5c5c;
    for (int i = 0; i < 8; i++) b[i] = sha256x4::bxor(s[i], sha256x4::splat(pad));
    for (int i = 8; i < 16; i++) b[i] = sha256x4::splat(pad);
    Lanes* st = pass == 0 ? is : os;
    splat8(st, sha256x4::kInitialState);
    sha256x4::compress(st, b);
  }
  for (uint32_t i = 1; i <= kLtHashBytes / 32; i++) {
    for (int k = 0; k < 8; k++) inner[k] = is[k];
    if (i == 1) {  // info || 01: 25 bytes, one block
      for (int k = 0; k < 6; k++) b[k] = sha256x4::splat(kc.info[k]);
      b[6] = sha256x4::splat(0x01800000);
      for (int k = 7; k < 15; k++) b[k] = sha256x4::splat(0);
      b[15] = sha256x4::splat(kBlockBits + 25 * 8);
      sha256x4::compress(inner, b);
    } else {  // T(i-1) || info || i: 57 bytes, two blocks
      for (int k = 0; k < 8; k++) b[k] = t[k];
      for (int k = 0; k < 6; k++) b[8 + k] = sha256x4::splat(kc.info[k]);
      b[14] = sha256x4::splat(i << 24 | 0x00800000);
      b[15] = sha256x4::splat(0);
      sha256x4::compress(inner, b);
      for (int k = 0; k < 15; k++) b[k] = sha256x4::splat(0);
      b[15] = sha256x4::splat(kBlockBits + 57 * 8);
      sha256x4::compress(inner, b);
    }
    for (int k = 0; k < 8; k++) t[k] = os[k];
    outer(t, inner);
    for (size_t l = 0; l < n; l++) {
      for (int k = 0; k < 8; k++) {
        const uint32_t v = sha256x4::lane(t[k], static_cast<int>(l));
        uint8_t* o = out[l] + 32 * (i - 1) + 4 * k;
        o[0] = static_cast<uint8_t>(v >> 24);
        o[1] = static_cast<uint8_t>(v >> 16);
        o[2] = static_cast<uint8_t>(v >> 8);
        o[3] = static_cast<uint8_t>(v);
      }
    }
  }
}

// The same expansion for one MAC through libsodium's HMAC (the extract step's empty-salt key state
// made once). Faster than the 4-lane form when the lanes are plain words (scalar builds).
void expand_mac(const uint8_t mac[kMacBytes], uint8_t out[kLtHashBytes]) {
  static const crypto_auth_hmacsha256_state kEmptySalt = [] {
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, nonnull({}), 0);
    return st;
  }();
  crypto_auth_hmacsha256_state st = kEmptySalt;
  uint8_t prk[hash::kSha256Bytes];
  crypto_auth_hmacsha256_update(&st, mac, kMacBytes);
  crypto_auth_hmacsha256_final(&st, prk);
  hash::hkdf_expand(prk, text(kPatchIntegrityInfo), {out, kLtHashBytes});
  sodium_memzero(prk, sizeof prk);
}

// Lane-wise addition or subtraction of 64 little-endian u16 lanes, mod 2^16.
void combine(uint8_t hash[kLtHashBytes], const uint8_t e[kLtHashBytes], bool add) {
  for (size_t i = 0; i < kLtHashBytes; i += 2) {
    const uint16_t a = static_cast<uint16_t>(hash[i] | hash[i + 1] << 8);
    const uint16_t b = static_cast<uint16_t>(e[i] | e[i + 1] << 8);
    const uint16_t r = static_cast<uint16_t>(add ? a + b : a - b);
    hash[i] = static_cast<uint8_t>(r);
    hash[i + 1] = static_cast<uint8_t>(r >> 8);
  }
}

void hmac256(Bytes key, std::initializer_list<Bytes> parts, uint8_t out[hash::kSha256Bytes]) {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, nonnull(key), key.size());
  for (Bytes p : parts) crypto_auth_hmacsha256_update(&st, nonnull(p), p.size());
  crypto_auth_hmacsha256_final(&st, out);
}

}  // namespace

void expand_keys(std::span<const uint8_t> key_data, MutationKeys& out) noexcept {
  static_assert(sizeof(MutationKeys) == 5 * kKeyBytes);
  hash::hkdf(key_data, {}, text(kMutationKeysInfo), {reinterpret_cast<uint8_t*>(&out), sizeof out});
}

void lthash_subtract_then_add(uint8_t hash[kLtHashBytes], std::span<const uint8_t> add_macs,
                              std::span<const uint8_t> sub_macs) noexcept {
#if defined(__wasm_simd128__)
  // Measured (bench/appstate.mjs, 812 MACs): 4 lanes of v128 1.88 ms against 3.28 ms one at a time.
  detail::lthash_lockstep(hash, add_macs, sub_macs);
#else
  // Four plain-word lanes were slower than libsodium one MAC at a time (4.92 against 3.60 ms).
  detail::lthash_one_by_one(hash, add_macs, sub_macs);
#endif
}

namespace detail {

void lthash_lockstep(uint8_t hash[kLtHashBytes], std::span<const uint8_t> add_macs,
                     std::span<const uint8_t> sub_macs) noexcept {
  uint8_t e[4][kLtHashBytes];
  for (const auto& [macs, add] : {std::pair{sub_macs, false}, std::pair{add_macs, true}}) {
    const size_t count = macs.size() / kMacBytes;
    for (size_t i = 0; i < count; i += 4) {
      const size_t n = count - i < 4 ? count - i : 4;
      expand_macs(macs.data() + i * kMacBytes, n, e);
      for (size_t l = 0; l < n; l++) combine(hash, e[l], add);
    }
  }
}

void lthash_one_by_one(uint8_t hash[kLtHashBytes], std::span<const uint8_t> add_macs,
                       std::span<const uint8_t> sub_macs) noexcept {
  uint8_t e[kLtHashBytes];
  for (const auto& [macs, add] : {std::pair{sub_macs, false}, std::pair{add_macs, true}}) {
    for (size_t i = 0; i + kMacBytes <= macs.size(); i += kMacBytes) {
      expand_mac(macs.data() + i, e);
      combine(hash, e, add);
    }
  }
}

}  // namespace detail

void index_mac(const uint8_t key[kKeyBytes], std::span<const uint8_t> index, uint8_t out[kMacBytes]) noexcept {
  hmac256({key, kKeyBytes}, {index}, out);
}

void value_mac(Operation op, std::span<const uint8_t> key_id, std::span<const uint8_t> data,
               const uint8_t key[kKeyBytes], uint8_t out[kMacBytes]) noexcept {
  const uint8_t op_byte = op == Operation::set ? 0x01 : 0x02;
  uint8_t length[8];
  be64(length, 1 + static_cast<uint64_t>(key_id.size()));
  crypto_auth_hmacsha512_state st;
  crypto_auth_hmacsha512_init(&st, key, kKeyBytes);
  crypto_auth_hmacsha512_update(&st, &op_byte, 1);
  crypto_auth_hmacsha512_update(&st, nonnull(key_id), key_id.size());
  crypto_auth_hmacsha512_update(&st, nonnull(data), data.size());
  crypto_auth_hmacsha512_update(&st, length, sizeof length);
  uint8_t full[hash::kSha512Bytes];
  crypto_auth_hmacsha512_final(&st, full);
  std::memcpy(out, full, kMacBytes);
  sodium_memzero(full, sizeof full);
}

void snapshot_mac(const uint8_t lthash[kLtHashBytes], uint64_t version, std::string_view name,
                  const uint8_t key[kKeyBytes], uint8_t out[kMacBytes]) noexcept {
  uint8_t v[8];
  be64(v, version);
  hmac256({key, kKeyBytes}, {{lthash, kLtHashBytes}, v, text(name)}, out);
}

void patch_mac(const uint8_t snapshot[kMacBytes], std::span<const uint8_t> value_macs, uint64_t version,
               std::string_view name, const uint8_t key[kKeyBytes], uint8_t out[kMacBytes]) noexcept {
  uint8_t v[8];
  be64(v, version);
  hmac256({key, kKeyBytes}, {{snapshot, kMacBytes}, value_macs, v, text(name)}, out);
}

void encrypt_value(const MutationKeys& keys, Operation op, std::span<const uint8_t> key_id,
                   std::span<const uint8_t> plaintext, const uint8_t iv[kIvBytes], uint8_t* out) noexcept {
  std::memcpy(out, iv, kIvBytes);
  aes::cbc_encrypt(keys.value_encryption, iv, plaintext.data(), plaintext.size(), out + kIvBytes);
  const size_t body = kIvBytes + aes::cbc_encrypted_size(plaintext.size());
  value_mac(op, key_id, {out, body}, keys.value_mac, out + body);
}

Error decrypt_value(const MutationKeys& keys, Operation op, std::span<const uint8_t> key_id,
                    std::span<const uint8_t> blob, uint8_t* out, size_t* out_len) noexcept {
  *out_len = 0;
  if (blob.size() < kIvBytes + 16 + kMacBytes || (blob.size() - kIvBytes - kMacBytes) % 16 != 0) {
    return Error::data_length;
  }
  const size_t body = blob.size() - kMacBytes;
  uint8_t mac[kMacBytes];
  value_mac(op, key_id, blob.first(body), keys.value_mac, mac);
  const bool ok = hash::equal(mac, blob.data() + body, kMacBytes);
  sodium_memzero(mac, sizeof mac);
  if (!ok) return Error::auth_tag;
  return aes::cbc_decrypt(keys.value_encryption, blob.data(), blob.data() + kIvBytes, body - kIvBytes, out, out_len);
}

}  // namespace wacore::appstate
