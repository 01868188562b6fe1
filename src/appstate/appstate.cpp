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
// lengths, so four of them run in lockstep on 4-lane words (one v128 per word in the SIMD build), or
// one at a time on plain words (the scalar build):
//   PRK  = HMAC(key = 32 zero bytes, mac):      inner 1 block (+ the constant ipad block), outer 1
//   HMAC(PRK, ...) key setup:                   ipad block, opad block
//   T1   = HMAC(PRK, info || 01):               inner 1 block, outer 1
//   Ti   = HMAC(PRK, T(i-1) || info || i), i=2..4: inner 2 blocks, outer 1
// The states after the zero key's ipad and opad blocks are the same for every MAC and made once, and
// so are the message schedules of T1's inner block and of the Ti's second (padding-only) block:
// 4 of the 15 compressions run their rounds only.
using sha256x4::Lanes;

constexpr uint32_t kBlockBits = 512;
constexpr uint32_t kEnd = 0x80000000;  // the padding's first byte, at the start of a word

struct ExpandConstants {
  uint32_t inner_zero[8], outer_zero[8], info[6];
  uint32_t first_block[64];  // T1's inner block: info || 01, padded after the ipad block
  uint32_t tail_block[64];   // the second inner block of T2..T4: padding and length only
  ExpandConstants() {
    uint32_t block[16];
    for (int i = 0; i < 8; i++) inner_zero[i] = outer_zero[i] = sha256x4::kInitialState[i];
    for (auto& w : block) w = 0x36363636;
    sha256x4::compress(inner_zero, block);
    for (auto& w : block) w = 0x5c5c5c5c;
    sha256x4::compress(outer_zero, block);
    static_assert(kPatchIntegrityInfo.size() == 24);
    for (int i = 0; i < 6; i++) {
      info[i] = static_cast<uint32_t>(static_cast<uint8_t>(kPatchIntegrityInfo[4 * i])) << 24 |
                static_cast<uint32_t>(static_cast<uint8_t>(kPatchIntegrityInfo[4 * i + 1])) << 16 |
                static_cast<uint32_t>(static_cast<uint8_t>(kPatchIntegrityInfo[4 * i + 2])) << 8 |
                static_cast<uint32_t>(static_cast<uint8_t>(kPatchIntegrityInfo[4 * i + 3]));
    }
    for (int i = 0; i < 6; i++) block[i] = info[i];
    block[6] = 0x01800000;  // counter 01, then the padding's first byte
    for (int i = 7; i < 15; i++) block[i] = 0;
    block[15] = kBlockBits + 25 * 8;
    sha256x4::schedule(block, first_block);
    for (int i = 0; i < 15; i++) block[i] = 0;
    block[15] = kBlockBits + 57 * 8;
    sha256x4::schedule(block, tail_block);
  }
};

uint32_t load_be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 | static_cast<uint32_t>(p[2]) << 8 |
         p[3];
}

// Word w of each of the n MACs, one MAC per lane.
template <typename L>
L load_words(const uint8_t* macs, size_t n, int w) {
  if constexpr (std::is_same_v<L, uint32_t>) {
    return load_be32(macs + 4 * w);
  } else {
    uint32_t lanes[sha256x4::kWidth] = {};
    for (size_t l = 0; l < n; l++) lanes[l] = load_be32(macs + 32 * l + 4 * w);
    return sha256x4::make(lanes);
  }
}

// The words of every lane, in lane order.
void store_lanes(Lanes x, uint32_t out[sha256x4::kWidth]) { sha256x4::store(x, out); }
void store_lanes(uint32_t x, uint32_t out[1]) { out[0] = x; }

template <typename L>
constexpr size_t kLaneCount = std::is_same_v<L, uint32_t> ? 1 : sha256x4::kWidth;

// Outer HMAC step: state (from the opad state) absorbs the inner hash, padded as a 96-byte message.
template <typename L>
void outer(L state[8], const L inner[8]) {
  L b[16];
  for (int i = 0; i < 8; i++) b[i] = inner[i];
  b[8] = sha256x4::broadcast<L>(kEnd);
  for (int i = 9; i < 15; i++) b[i] = sha256x4::broadcast<L>(0);
  b[15] = sha256x4::broadcast<L>(kBlockBits + 256);
  sha256x4::compress(state, b);
}

// Adds (or subtracts) the expansions of n MACs (n <= the lane count of L) to acc: the hash's 64 u16
// lanes, each summed in a u32 word and reduced mod 2^16 at the end.
template <typename L>
void accumulate(const uint8_t* macs, size_t n, bool add, uint32_t acc[kLtHashBytes / 2]) {
  static const ExpandConstants kc;
  L b[16], s[8], is[8], os[8], t[8], inner[8];
  const auto fill = [](L dst[8], const uint32_t src[8]) {
    for (int i = 0; i < 8; i++) dst[i] = sha256x4::broadcast<L>(src[i]);
  };
  // PRK: inner hash of the MAC after the zero key's ipad block, then the outer hash.
  for (int w = 0; w < 8; w++) b[w] = load_words<L>(macs, n, w);
  b[8] = sha256x4::broadcast<L>(kEnd);
  for (int i = 9; i < 15; i++) b[i] = sha256x4::broadcast<L>(0);
  b[15] = sha256x4::broadcast<L>(kBlockBits + 256);
  fill(inner, kc.inner_zero);
  sha256x4::compress(inner, b);
  fill(s, kc.outer_zero);
  outer(s, inner);  // s = PRK
  // HMAC(PRK, ...): the ipad and opad states.
  for (int pass = 0; pass < 2; pass++) {
    const L pad = sha256x4::broadcast<L>(pass == 0 ? 0x36363636 : 0x5c5c5c5c);
    for (int i = 0; i < 8; i++) b[i] = sha256x4::bxor(s[i], pad);
    for (int i = 8; i < 16; i++) b[i] = pad;
    L* st = pass == 0 ? is : os;
    fill(st, sha256x4::kInitialState);
    sha256x4::compress(st, b);
  }
  for (uint32_t i = 1; i <= kLtHashBytes / 32; i++) {
    for (int k = 0; k < 8; k++) inner[k] = is[k];
    if (i == 1) {  // info || 01: 25 bytes, one block
      sha256x4::compress_scheduled(inner, kc.first_block);
    } else {  // T(i-1) || info || i: 57 bytes, two blocks
      for (int k = 0; k < 8; k++) b[k] = t[k];
      for (int k = 0; k < 6; k++) b[8 + k] = sha256x4::broadcast<L>(kc.info[k]);
      b[14] = sha256x4::broadcast<L>(i << 24 | 0x00800000);
      b[15] = sha256x4::broadcast<L>(0);
      sha256x4::compress(inner, b);
      sha256x4::compress_scheduled(inner, kc.tail_block);
    }
    for (int k = 0; k < 8; k++) t[k] = os[k];
    outer(t, inner);
    // Output word k of T(i) is bytes 4k..4k+3 of this 32-byte block, big-endian; byte-swapped, its
    // low and high halves are the two little-endian u16 lanes those bytes make.
    for (int k = 0; k < 8; k++) {
      uint32_t words[kLaneCount<L>];
      store_lanes(t[k], words);
      uint32_t* lanes = acc + 16 * (i - 1) + 2 * k;
      for (size_t l = 0; l < n; l++) {
        const uint32_t x = __builtin_bswap32(words[l]);
        lanes[0] += add ? (x & 0xffff) : 0 - (x & 0xffff);
        lanes[1] += add ? (x >> 16) : 0 - (x >> 16);
      }
    }
  }
}

void hmac256(Bytes key, std::initializer_list<Bytes> parts, uint8_t out[hash::kSha256Bytes]) {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, nonnull(key), key.size());
  for (Bytes p : parts) crypto_auth_hmacsha256_update(&st, nonnull(p), p.size());
  crypto_auth_hmacsha256_final(&st, out);
}

}  // namespace

void expand_keys(std::span<const uint8_t> key_data, MutationKeys& out) {
  static_assert(sizeof(MutationKeys) == 5 * kKeyBytes);
  hash::hkdf(key_data, {}, text(kMutationKeysInfo), {reinterpret_cast<uint8_t*>(&out), sizeof out});
}

void lthash_subtract_then_add(uint8_t hash[kLtHashBytes], std::span<const uint8_t> add_macs,
                              std::span<const uint8_t> sub_macs) {
#if defined(__wasm_simd128__)
  detail::lthash_lockstep(hash, add_macs, sub_macs);
#else
  // Four plain-word lanes are slower than one MAC at a time on plain words (docs/appstate.md).
  detail::lthash_one_by_one(hash, add_macs, sub_macs);
#endif
}

namespace detail {

// The hash's 64 u16 lanes summed in u32 words (sums wrap mod 2^32, which keeps them right mod 2^16).
template <typename Body>
void with_lanes(uint8_t hash[kLtHashBytes], Body body) {
  uint32_t acc[kLtHashBytes / 2];
  for (size_t i = 0; i < kLtHashBytes / 2; i++) acc[i] = hash[2 * i] | hash[2 * i + 1] << 8;
  body(acc);
  for (size_t i = 0; i < kLtHashBytes / 2; i++) {
    hash[2 * i] = static_cast<uint8_t>(acc[i]);
    hash[2 * i + 1] = static_cast<uint8_t>(acc[i] >> 8);
  }
}

void lthash_lockstep(uint8_t hash[kLtHashBytes], std::span<const uint8_t> add_macs,
                     std::span<const uint8_t> sub_macs) {
  // Full batches of kWidth MACs; a short last batch runs padded when that is cheaper than running
  // its MACs one at a time (more than a third of the lanes in use).
  constexpr size_t kWidth = sha256x4::kWidth;
  with_lanes(hash, [&](uint32_t acc[]) {
    for (const auto& [macs, add] : {std::pair{sub_macs, false}, std::pair{add_macs, true}}) {
      const size_t count = macs.size() / kMacBytes;
      size_t i = 0;
      for (; i < count; i += kWidth) {
        const size_t n = count - i < kWidth ? count - i : kWidth;
        if (n * 3 <= kWidth) break;
        accumulate<Lanes>(macs.data() + i * kMacBytes, n, add, acc);
      }
      for (; i < count; i++) accumulate<uint32_t>(macs.data() + i * kMacBytes, 1, add, acc);
    }
  });
}

void lthash_one_by_one(uint8_t hash[kLtHashBytes], std::span<const uint8_t> add_macs,
                       std::span<const uint8_t> sub_macs) {
  with_lanes(hash, [&](uint32_t acc[]) {
    for (const auto& [macs, add] : {std::pair{sub_macs, false}, std::pair{add_macs, true}}) {
      for (size_t i = 0; i + kMacBytes <= macs.size(); i += kMacBytes) accumulate<uint32_t>(macs.data() + i, 1, add, acc);
    }
  });
}

}  // namespace detail

void index_mac(const uint8_t key[kKeyBytes], std::span<const uint8_t> index, uint8_t out[kMacBytes]) {
  hmac256({key, kKeyBytes}, {index}, out);
}

void value_mac(Operation op, std::span<const uint8_t> key_id, std::span<const uint8_t> data,
               const uint8_t key[kKeyBytes], uint8_t out[kMacBytes]) {
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
                  const uint8_t key[kKeyBytes], uint8_t out[kMacBytes]) {
  uint8_t v[8];
  be64(v, version);
  hmac256({key, kKeyBytes}, {{lthash, kLtHashBytes}, v, text(name)}, out);
}

void patch_mac(const uint8_t snapshot[kMacBytes], std::span<const uint8_t> value_macs, uint64_t version,
               std::string_view name, const uint8_t key[kKeyBytes], uint8_t out[kMacBytes]) {
  uint8_t v[8];
  be64(v, version);
  hmac256({key, kKeyBytes}, {{snapshot, kMacBytes}, value_macs, v, text(name)}, out);
}

void encrypt_value(const MutationKeys& keys, Operation op, std::span<const uint8_t> key_id,
                   std::span<const uint8_t> plaintext, const uint8_t iv[kIvBytes], uint8_t* out) {
  std::memcpy(out, iv, kIvBytes);
  aes::cbc_encrypt(keys.value_encryption, iv, plaintext.data(), plaintext.size(), out + kIvBytes);
  const size_t body = kIvBytes + aes::cbc_encrypted_size(plaintext.size());
  value_mac(op, key_id, {out, body}, keys.value_mac, out + body);
}

Error decrypt_value(const MutationKeys& keys, Operation op, std::span<const uint8_t> key_id,
                    std::span<const uint8_t> blob, uint8_t* out, size_t* out_len) {
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
