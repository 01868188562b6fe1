#include "appstate/appstate.h"

#include <sodium.h>

#include <cstring>

#include "common/bytes.h"
#include "crypto/aes_modes.h"
#include "crypto/hash.h"

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

// HKDF-SHA256(mac, no salt, "WhatsApp Patch Integrity", 128). The extract step's HMAC key is the
// empty salt, the same for every MAC, so its keyed state is made once.
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
  uint8_t e[kLtHashBytes];
  for (size_t i = 0; i + kMacBytes <= sub_macs.size(); i += kMacBytes) {
    expand_mac(sub_macs.data() + i, e);
    combine(hash, e, false);
  }
  for (size_t i = 0; i + kMacBytes <= add_macs.size(); i += kMacBytes) {
    expand_mac(add_macs.data() + i, e);
    combine(hash, e, true);
  }
}

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
