#include "appstate/patch.h"

#include <sodium.h>

#include <algorithm>
#include <cstring>

#include "crypto/hash.h"

namespace wacore::appstate {
namespace {

using Mac = std::array<uint8_t, kMacBytes>;

const MutationKeys* find_keys(std::span<const KeyEntry> keys, std::span<const uint8_t> id) {
  for (const KeyEntry& k : keys) {
    if (k.key_id.size() == id.size() && (id.empty() || std::memcmp(k.key_id.data(), id.data(), id.size()) == 0)) {
      return &k.keys;
    }
  }
  return nullptr;
}

bool less(const IndexValue& a, const Mac& b) { return std::memcmp(a.index_mac.data(), b.data(), kMacBytes) < 0; }

// Applies mutations to `work` (a copy of the state) and collects the MACs to add and subtract, as
// Baileys' LTHash generator does: each mutation sees the index map as the ones before it left it.
Error apply(LtHashState& work, std::span<const SyncdMutation> mutations, std::span<const KeyEntry> keys,
            const VerifyOptions& options, VerifyResult& out) {
  std::vector<uint8_t> add, sub;
  add.reserve(mutations.size() * kMacBytes);
  for (const SyncdMutation& m : mutations) {
    const SyncdRecord& rec = m.record;
    const MutationKeys* k = find_keys(keys, rec.key_id);
    if (k == nullptr) return Error::missing_key;
    if (rec.index.size() != kMacBytes || rec.value.size() < kIvBytes + 16 + kMacBytes) return Error::invalid_patch;
    VerifiedMutation& v = out.mutations.emplace_back();
    v.operation = m.operation;
    v.data.resize(rec.value.size() - kIvBytes - kMacBytes);
    size_t n = 0;
    Error e = decrypt_value(*k, m.operation, rec.key_id, rec.value, v.data.data(), &n);
    if (e == Error::auth_tag) return Error::value_mac;
    if (e == Error::data_length) return Error::invalid_patch;
    if (e != Error::ok) return e;
    v.data.resize(n);
    SyncActionData& action = v.action;
    if (decode_sync_action_data(v.data, action) != Error::ok) return Error::invalid_patch;
    uint8_t mac[kMacBytes];
    index_mac(k->index, action.index, mac);
    const bool index_ok = hash::equal(mac, rec.index.data(), kMacBytes);
    if (!index_ok) return Error::index_mac;

    Mac index;
    std::memcpy(index.data(), rec.index.data(), kMacBytes);
    const uint8_t* value_mac = rec.value.data() + rec.value.size() - kMacBytes;
    auto it = std::lower_bound(work.values.begin(), work.values.end(), index, less);
    const bool found = it != work.values.end() && it->index_mac == index;
    if (found) sub.insert(sub.end(), it->value_mac.begin(), it->value_mac.end());
    if (m.operation == Operation::remove) {
      if (found) {
        work.values.erase(it);
      } else if (options.strict_remove) {
        return Error::remove_without_set;
      } else {
        out.removes_without_set++;
      }
    } else {
      add.insert(add.end(), value_mac, value_mac + kMacBytes);
      if (found) {
        std::memcpy(it->value_mac.data(), value_mac, kMacBytes);
      } else {
        IndexValue iv;
        iv.index_mac = index;
        std::memcpy(iv.value_mac.data(), value_mac, kMacBytes);
        work.values.insert(it, iv);
      }
    }
  }
  lthash_subtract_then_add(work.hash.data(), add, sub);
  return Error::ok;
}

Error check_snapshot_mac(const LtHashState& s, std::string_view name, const MutationKeys& k,
                         std::span<const uint8_t> expected) {
  if (expected.size() != kMacBytes) return Error::invalid_patch;
  uint8_t mac[kMacBytes];
  snapshot_mac(s.hash.data(), s.version, name, k.snapshot_mac, mac);
  return hash::equal(mac, expected.data(), kMacBytes) ? Error::ok : Error::snapshot_mac;
}

void wipe(VerifyResult& r) noexcept {
  for (VerifiedMutation& m : r.mutations) sodium_memzero(m.data.data(), m.data.size());
  r.mutations.clear();
}

}  // namespace

Error normalize_state(LtHashState& state) {
  std::sort(state.values.begin(), state.values.end(),
            [](const IndexValue& a, const IndexValue& b) { return less(a, b.index_mac); });
  for (size_t i = 1; i < state.values.size(); i++) {
    if (state.values[i - 1].index_mac == state.values[i].index_mac) return Error::invalid_patch;
  }
  return Error::ok;
}

Error verify_patch(LtHashState& state, const SyncdPatch& patch, std::string_view name,
                   std::span<const KeyEntry> keys, const VerifyOptions& options, VerifyResult& out) {
  if (!patch.has_version) return Error::invalid_patch;
  const MutationKeys* k = find_keys(keys, patch.key_id);
  if (k == nullptr) return Error::missing_key;
  if (patch.snapshot_mac.size() != kMacBytes || patch.patch_mac.size() != kMacBytes) return Error::invalid_patch;
  std::vector<uint8_t> value_macs;
  value_macs.reserve(patch.mutations.size() * kMacBytes);
  for (const SyncdMutation& m : patch.mutations) {
    if (m.record.value.size() < kMacBytes) return Error::invalid_patch;
    value_macs.insert(value_macs.end(), m.record.value.end() - kMacBytes, m.record.value.end());
  }
  uint8_t mac[kMacBytes];
  patch_mac(patch.snapshot_mac.data(), value_macs, patch.version, name, k->patch_mac, mac);
  if (!hash::equal(mac, patch.patch_mac.data(), kMacBytes)) return Error::patch_mac;

  LtHashState work = state;
  VerifyResult result;
  Error e = apply(work, patch.mutations, keys, options, result);
  work.version = patch.version;
  if (e == Error::ok) e = check_snapshot_mac(work, name, *k, patch.snapshot_mac);
  if (e != Error::ok) {
    wipe(result);
    return e;
  }
  state = std::move(work);
  wipe(out);
  out = std::move(result);
  return Error::ok;
}

Error verify_snapshot(const SyncdSnapshot& snapshot, std::string_view name, std::span<const KeyEntry> keys,
                      LtHashState& state, VerifyResult& out) {
  if (!snapshot.has_version) return Error::invalid_patch;
  const MutationKeys* k = find_keys(keys, snapshot.key_id);
  if (k == nullptr) return Error::missing_key;
  std::vector<SyncdMutation> mutations(snapshot.records.size());
  for (size_t i = 0; i < snapshot.records.size(); i++) mutations[i].record = snapshot.records[i];
  LtHashState work;
  work.version = snapshot.version;
  VerifyResult result;
  Error e = apply(work, mutations, keys, VerifyOptions{}, result);
  if (e == Error::ok) e = check_snapshot_mac(work, name, *k, snapshot.mac);
  if (e != Error::ok) {
    wipe(result);
    return e;
  }
  state = std::move(work);
  wipe(out);
  out = std::move(result);
  return Error::ok;
}

}  // namespace wacore::appstate
