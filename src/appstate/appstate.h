// App-state sync integrity (docs/protocol.md §4): the mutation keys, the LTHash, and the MACs that
// chain snapshots and patches together, plus the encryption of mutation values.
//
// LTHash: a 128-byte state of 64 little-endian 16-bit lanes. Adding a value MAC expands it with
// HKDF-SHA256 (no salt, info "WhatsApp Patch Integrity", 128 bytes) and adds lane-wise mod 2^16;
// subtracting does the reverse, so the state depends only on the set of values, not on the order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/error.h"

namespace wacore::appstate {

inline constexpr size_t kKeyBytes = 32;
inline constexpr size_t kMacBytes = 32;        // value, index, snapshot and patch MACs
inline constexpr size_t kLtHashBytes = 128;
inline constexpr size_t kIvBytes = 16;
inline constexpr std::string_view kMutationKeysInfo = "WhatsApp Mutation Keys";
inline constexpr std::string_view kPatchIntegrityInfo = "WhatsApp Patch Integrity";

// SyncdMutation operations as the protobuf numbers them, and the byte the value MAC uses for each.
enum class Operation : uint8_t { set = 0, remove = 1 };

struct MutationKeys {
  uint8_t index[kKeyBytes];
  uint8_t value_encryption[kKeyBytes];
  uint8_t value_mac[kKeyBytes];
  uint8_t snapshot_mac[kKeyBytes];
  uint8_t patch_mac[kKeyBytes];
};

// HKDF-SHA256(key_data, no salt, "WhatsApp Mutation Keys", 160) split into five 32-byte keys.
void expand_keys(std::span<const uint8_t> key_data, MutationKeys& out);

// hash = hash - sum(expand(sub)) + sum(expand(add)), over n MACs of 32 bytes laid end to end.
void lthash_subtract_then_add(uint8_t hash[kLtHashBytes], std::span<const uint8_t> add_macs,
                              std::span<const uint8_t> sub_macs);

// Both ways of computing the LTHash, in every build (for tests): four MACs at a time through the
// 4-lane SHA-256 (the SIMD build's choice), and one at a time on plain words (the others').
namespace detail {
void lthash_lockstep(uint8_t hash[kLtHashBytes], std::span<const uint8_t> add_macs,
                     std::span<const uint8_t> sub_macs);
void lthash_one_by_one(uint8_t hash[kLtHashBytes], std::span<const uint8_t> add_macs,
                       std::span<const uint8_t> sub_macs);
}  // namespace detail

// HMAC-SHA256(index key, index JSON bytes).
void index_mac(const uint8_t key[kKeyBytes], std::span<const uint8_t> index, uint8_t out[kMacBytes]);

// HMAC-SHA512(value MAC key, op byte || key id || data || uint64_BE(1 + len(key id)))[0:32], where
// data is iv || ciphertext and the op byte is 1 for SET, 2 for REMOVE.
void value_mac(Operation op, std::span<const uint8_t> key_id, std::span<const uint8_t> data,
               const uint8_t key[kKeyBytes], uint8_t out[kMacBytes]);

// HMAC-SHA256(snapshot MAC key, lthash || uint64_BE(version) || name).
void snapshot_mac(const uint8_t lthash[kLtHashBytes], uint64_t version, std::string_view name,
                  const uint8_t key[kKeyBytes], uint8_t out[kMacBytes]);

// HMAC-SHA256(patch MAC key, snapshot MAC || value MACs || uint64_BE(version) || name).
void patch_mac(const uint8_t snapshot[kMacBytes], std::span<const uint8_t> value_macs, uint64_t version,
               std::string_view name, const uint8_t key[kKeyBytes], uint8_t out[kMacBytes]);

// Bytes encrypt_value writes for a plaintext of n bytes: iv, AES-256-CBC with padding, value MAC.
constexpr size_t encrypted_value_size(size_t n) { return kIvBytes + (n / 16 + 1) * 16 + kMacBytes; }

// The value blob of a mutation: iv || AES-256-CBC(value encryption key, iv, plaintext) || value MAC.
void encrypt_value(const MutationKeys& keys, Operation op, std::span<const uint8_t> key_id,
                   std::span<const uint8_t> plaintext, const uint8_t iv[kIvBytes], uint8_t* out);

// Checks the blob's value MAC (in constant time) before decrypting anything; writes the plaintext
// to out (blob.size() - 48 bytes of room) and its length to out_len. Errors: data_length (blob too
// short or misaligned), auth_tag (MAC), bad_padding.
Error decrypt_value(const MutationKeys& keys, Operation op, std::span<const uint8_t> key_id,
                    std::span<const uint8_t> blob, uint8_t* out, size_t* out_len);

}  // namespace wacore::appstate
