// App-state patches and snapshots (docs/protocol.md §4): decoding SyncdPatch, SyncdSnapshot,
// SyncdMutation and SyncdRecord, and verifying them against a running LTHash state.
//
// Verification of a patch, in order (nothing of the state changes unless every step passes):
//  1. patch MAC = HMAC(patchMacKey, snapshotMac || value MACs || uint64_BE(version) || name), with
//     the keys of the patch's keyId;
//  2. per mutation, with the keys of its record's keyId: value MAC (before decrypting), then the
//     value decrypted and its SyncActionData index checked against the index MAC;
//  3. the LTHash updated: SET adds its value MAC and subtracts the value MAC the state holds for the
//     same index MAC; REMOVE subtracts that one and forgets the index;
//  4. snapshot MAC of the new hash, the patch's version and name, compared with patch.snapshotMac.
// A snapshot: every record is a SET on an empty state, then its MAC is checked as in 4.
//
// REMOVE of an index the state does not hold (Baileys throws, whatsmeow warns): by default nothing
// is subtracted and the mutation is counted in `removes_without_set`; step 4 still decides whether
// the result is the server's state. With `strict_remove`, Error::remove_without_set.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "appstate/appstate.h"
#include "common/error.h"

namespace wacore::appstate {

// Spans point into the decoded input.
struct SyncdRecord {
  std::span<const uint8_t> index;   // SyncdIndex.blob: the index MAC
  std::span<const uint8_t> value;   // SyncdValue.blob: iv || ciphertext || value MAC
  std::span<const uint8_t> key_id;  // KeyId.id
};

struct SyncdMutation {
  Operation operation = Operation::set;
  SyncdRecord record;
};

struct SyncdPatch {
  bool has_version = false;
  uint64_t version = 0;
  std::vector<SyncdMutation> mutations;
  std::span<const uint8_t> external_mutations;  // ExternalBlobReference, undecoded; empty if none
  bool has_external = false;
  std::span<const uint8_t> snapshot_mac;
  std::span<const uint8_t> patch_mac;
  std::span<const uint8_t> key_id;
  bool has_device_index = false;
  uint32_t device_index = 0;
};

struct SyncdSnapshot {
  bool has_version = false;
  uint64_t version = 0;
  std::vector<SyncdRecord> records;
  std::span<const uint8_t> mac;
  std::span<const uint8_t> key_id;
};

// Limits on what one decode accepts (a realistic snapshot holds a few thousand records).
inline constexpr size_t kMaxMutations = 100'000;
// Sync keys one verification is given: a patch names one key per mutation at most, and accounts hold
// a few dozen. More is refused (Error::data_length) rather than cut short.
inline constexpr size_t kMaxKeys = 1'024;

// Errors: Error::invalid_patch.
Error decode_patch(std::span<const uint8_t> in, SyncdPatch& out);
Error decode_snapshot(std::span<const uint8_t> in, SyncdSnapshot& out);
// SyncdMutations{mutations=1} (a downloaded externalMutations blob), appended to out.
Error decode_mutations(std::span<const uint8_t> in, std::vector<SyncdMutation>& out);
// SyncActionData{index=1, value=2, padding=3, version=4}: the spans point into `in`.
struct SyncActionData {
  std::span<const uint8_t> index;
  bool has_value = false;
  std::span<const uint8_t> value;  // SyncActionValue, undecoded
  std::span<const uint8_t> padding;
  bool has_version = false;
  int32_t version = 0;
};
Error decode_sync_action_data(std::span<const uint8_t> in, SyncActionData& out);

// Baileys' LTHashState: version, hash, and the value MAC of every index MAC it holds.
struct IndexValue {
  std::array<uint8_t, kMacBytes> index_mac;
  std::array<uint8_t, kMacBytes> value_mac;
};
struct LtHashState {
  uint64_t version = 0;
  std::array<uint8_t, kLtHashBytes> hash{};
  std::vector<IndexValue> values;  // sorted by index_mac, unique
};
// Sorts and checks a state read from storage (Error::invalid_patch on a repeated index MAC).
Error normalize_state(LtHashState& state);

// The expanded keys of one app-state sync key.
struct KeyEntry {
  std::span<const uint8_t> key_id;
  MutationKeys keys;
};

struct VerifyOptions {
  bool strict_remove = false;
};

// One verified mutation: the decrypted SyncActionData (owned) and where its parts are.
struct VerifiedMutation {
  Operation operation = Operation::set;
  std::vector<uint8_t> data;  // SyncActionData bytes
  SyncActionData action;      // its fields, pointing into `data` (so it moves but does not copy)

  VerifiedMutation() = default;
  VerifiedMutation(VerifiedMutation&&) noexcept = default;
  VerifiedMutation& operator=(VerifiedMutation&&) noexcept = default;
  VerifiedMutation(const VerifiedMutation&) = delete;
  VerifiedMutation& operator=(const VerifiedMutation&) = delete;
};

struct VerifyResult {
  std::vector<VerifiedMutation> mutations;
  size_t removes_without_set = 0;
};

// Errors: missing_key, invalid_patch (no version, MACs of the wrong size, a value blob too short),
// patch_mac, value_mac, index_mac, bad_padding, remove_without_set, snapshot_mac. On error `state`
// is unchanged.
Error verify_patch(LtHashState& state, const SyncdPatch& patch, std::string_view name,
                   std::span<const KeyEntry> keys, const VerifyOptions& options, VerifyResult& out);
// The state a snapshot describes (state = its records on a zero hash, at its version).
Error verify_snapshot(const SyncdSnapshot& snapshot, std::string_view name, std::span<const KeyEntry> keys,
                      LtHashState& state, VerifyResult& out);

}  // namespace wacore::appstate
