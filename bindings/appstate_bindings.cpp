// Glue for app state: the mutation keys, LTHash and MACs, value encryption (plain exports, from
// src/appstate/appstate.h), and the bodies of the patch and snapshot decoding and verification
// exports (generated layout exports, src/appstate/patch.h). Marshalling only.
//
// The plain exports take addresses in the module's one I/O buffer (bindings/module.cpp) and lengths
// and return what their declared return kind says; the export turns a failure into -Error. The
// layout exports receive their parsed input layout (bindings/boundary.json) and emit their result
// layout; on error nothing is emitted.
#include <emscripten.h>
#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "appstate/appstate.h"
#include "appstate/patch.h"
#include "common/error.h"
#include "generated/boundary.h"

namespace wacore::bindings::plain {

namespace as = wacore::appstate;
namespace {
std::string_view name_at(uintptr_t p, size_t n) { return {at<const char>(p), n}; }
uint64_t u64(uint32_t hi, uint32_t lo) { return static_cast<uint64_t>(hi) << 32 | lo; }
as::MutationKeys& keys_at(uintptr_t p) { return *at<as::MutationKeys>(p); }
bool is_operation(int32_t op) { return op == 0 || op == 1; }
}  // namespace

// Each export is declared whole (bindings/boundary.json): the generated export has checked every
// sized input's length; the lengths of the sized ones are not needed here.
Error appstate_expand_keys(uintptr_t key_data, size_t key_data_len, uintptr_t keys) {
  as::expand_keys(bytes(key_data, key_data_len), keys_at(keys));
  return Error::ok;
}

// The MAC lists are 32-byte MACs end to end.
Error appstate_lt_hash(uintptr_t base, size_t, uintptr_t add, size_t add_len, uintptr_t sub, size_t sub_len,
                       uintptr_t hash) {
  if (add_len % as::kMacBytes != 0 || sub_len % as::kMacBytes != 0) return Error::data_length;
  std::memcpy(at(hash), at(base), as::kLtHashBytes);
  as::lthash_subtract_then_add(at(hash), bytes(add, add_len), bytes(sub, sub_len));
  return Error::ok;
}

Error appstate_index_mac(uintptr_t key, size_t, uintptr_t index, size_t index_len, uintptr_t mac) {
  as::index_mac(at(key), bytes(index, index_len), at(mac));
  return Error::ok;
}

Error appstate_value_mac(int32_t op, uintptr_t key_id, size_t key_id_len, uintptr_t data, size_t data_len, uintptr_t key,
                         size_t, uintptr_t mac) {
  if (!is_operation(op)) return Error::type;
  as::value_mac(static_cast<as::Operation>(op), bytes(key_id, key_id_len), bytes(data, data_len), at(key), at(mac));
  return Error::ok;
}

Error appstate_snapshot_mac(uintptr_t lt_hash, size_t, uint32_t version_hi, uint32_t version_lo, uintptr_t name,
                            size_t name_len, uintptr_t key, size_t, uintptr_t mac) {
  as::snapshot_mac(at(lt_hash), u64(version_hi, version_lo), name_at(name, name_len), at(key), at(mac));
  return Error::ok;
}

Error appstate_patch_mac(uintptr_t snapshot, size_t, uintptr_t macs, size_t macs_len, uint32_t version_hi,
                         uint32_t version_lo, uintptr_t name, size_t name_len, uintptr_t key, size_t, uintptr_t mac) {
  if (macs_len % as::kMacBytes != 0) return Error::data_length;
  as::patch_mac(at(snapshot), bytes(macs, macs_len), u64(version_hi, version_lo), name_at(name, name_len), at(key),
                at(mac));
  return Error::ok;
}

size_t appstate_encrypted_value_size(size_t len) { return as::encrypted_value_size(len); }

// keys: the 160-byte expansion; blob: room for exactly encrypted_value_size(data_len) bytes.
Error appstate_encrypt_value(uintptr_t keys, size_t, int32_t op, uintptr_t key_id, size_t key_id_len, uintptr_t data,
                             size_t data_len, uintptr_t iv, size_t, uintptr_t blob, size_t blob_len) {
  if (!is_operation(op)) return Error::type;
  if (blob_len != as::encrypted_value_size(data_len)) return Error::output_length;
  as::encrypt_value(keys_at(keys), static_cast<as::Operation>(op), bytes(key_id, key_id_len), bytes(data, data_len),
                    at(iv), at(blob));
  return Error::ok;
}

// data: room for the blob's length (the plaintext is shorter). The plaintext length.
wire::Value appstate_decrypt_value(uintptr_t keys, size_t, int32_t op, uintptr_t key_id, size_t key_id_len,
                                   uintptr_t blob, size_t blob_len, uintptr_t data, size_t data_len) {
  if (!is_operation(op)) return Error::type;
  if (data_len < blob_len) return Error::output_length;
  size_t n = 0;
  const Error e = as::decrypt_value(keys_at(keys), static_cast<as::Operation>(op), bytes(key_id, key_id_len),
                                    bytes(blob, blob_len), at(data), &n);
  if (e != Error::ok) return e;
  return wire::Value::of(n);
}

}  // namespace wacore::bindings::plain

namespace wacore::bindings::impl {

namespace as = wacore::appstate;

namespace {

wire::SyncdRecord wire_record(const as::SyncdRecord& r) {
  wire::SyncdRecord w;
  wire::from_core(r, w);
  return w;
}
as::SyncdRecord core_record(const wire::SyncdRecord& w) {
  as::SyncdRecord r;
  wire::to_core(w, r);
  return r;
}

wire::Each<wire::SyncdMutation> wire_mutations(const std::vector<as::SyncdMutation>& ms) {
  return wire::each<wire::SyncdMutation>(ms, [](const as::SyncdMutation& m) {
    return wire::SyncdMutation{static_cast<uint8_t>(m.operation), wire_record(m.record)};
  });
}

// The sync keys, expanded; wiped when the call ends.
struct Keys {
  std::vector<as::KeyEntry> entries;
  explicit Keys(const wire::Items<wire::SyncKey>& keys) {
    entries.reserve(keys.size());
    keys.for_each([&](const wire::SyncKey& k) {
      as::KeyEntry& e = entries.emplace_back();
      e.key_id = k.key_id;
      as::expand_keys(k.key_data, e.keys);
    });
  }
  ~Keys() {
    for (as::KeyEntry& k : entries) sodium_memzero(&k.keys, sizeof k.keys);
  }
  Keys(const Keys&) = delete;
  Keys& operator=(const Keys&) = delete;
};

std::string_view text(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// The new state and the verified mutations; each mutation's SyncActionData is wiped once written.
int emit_verified(const as::LtHashState& state, as::VerifyResult& result) {
  const int r = emit(wire::AppStateVerifyOut{
      .version = state.version,
      .hash = state.hash,
      .values = wire::each<wire::IndexValue>(state.values,
                                             [](const as::IndexValue& v) {
                                               wire::IndexValue w;
                                               wire::from_core(v, w);
                                               return w;
                                             }),
      .removes_without_set = static_cast<uint32_t>(result.removes_without_set),
      .mutations = wire::each<wire::VerifiedMutation>(result.mutations, [](const as::VerifiedMutation& m) {
        const as::SyncActionData& a = m.action;
        return wire::VerifiedMutation{.operation = static_cast<uint8_t>(m.operation),
                                      .data = m.data,
                                      .index = a.index,
                                      .has_value = a.has_value,
                                      .value = a.value,
                                      .has_version = a.has_version,
                                      .version = static_cast<uint32_t>(a.version)};
      })});
  for (as::VerifiedMutation& m : result.mutations) sodium_memzero(m.data.data(), m.data.size());
  return r;
}

}  // namespace

int appstate_decode_patch(const wire::BytesIn& in) {
  as::SyncdPatch p;
  if (Error e = as::decode_patch(in.bytes, p); e != Error::ok) return rc(e);
  return emit(wire::SyncdPatchOut{.has_version = p.has_version,
                                  .version = p.version,
                                  .snapshot_mac = p.snapshot_mac,
                                  .patch_mac = p.patch_mac,
                                  .key_id = p.key_id,
                                  .has_external = p.has_external,
                                  .external = p.external_mutations,
                                  .has_device_index = p.has_device_index,
                                  .device_index = p.device_index,
                                  .mutations = wire_mutations(p.mutations)});
}

int appstate_decode_snapshot(const wire::BytesIn& in) {
  as::SyncdSnapshot s;
  if (Error e = as::decode_snapshot(in.bytes, s); e != Error::ok) return rc(e);
  return emit(wire::SyncdSnapshotOut{.has_version = s.has_version,
                                     .version = s.version,
                                     .mac = s.mac,
                                     .key_id = s.key_id,
                                     .records = wire::each<wire::SyncdRecord>(
                                         s.records, [](const as::SyncdRecord& r) { return wire_record(r); })});
}

int appstate_decode_mutations(const wire::BytesIn& in) {
  std::vector<as::SyncdMutation> ms;
  if (Error e = as::decode_mutations(in.bytes, ms); e != Error::ok) return rc(e);
  return emit(wire::SyncdMutationsOut{.mutations = wire_mutations(ms)});
}

int appstate_verify_patch(const wire::AppStateVerifyPatchIn& in) {
  const Keys keys(in.keys);
  as::LtHashState state;
  state.version = in.state_version;
  std::memcpy(state.hash.data(), in.hash.data(), state.hash.size());
  state.values.reserve(in.values.size());
  in.values.for_each([&](const wire::IndexValue& v) { wire::to_core(v, state.values.emplace_back()); });
  as::SyncdPatch p;
  p.has_version = true;
  p.version = in.version;
  p.snapshot_mac = in.snapshot_mac;
  p.patch_mac = in.patch_mac;
  p.key_id = in.key_id;
  p.mutations.reserve(in.mutations.size());
  in.mutations.for_each([&](const wire::SyncdMutation& m) {
    p.mutations.push_back({m.operation == 1 ? as::Operation::remove : as::Operation::set, core_record(m.record)});
  });
  as::VerifyOptions options;
  options.strict_remove = in.strict_remove;
  as::VerifyResult result;
  Error e = as::normalize_state(state);
  if (e == Error::ok) e = as::verify_patch(state, p, text(in.name), keys.entries, options, result);
  if (e != Error::ok) return rc(e);
  return emit_verified(state, result);
}

int appstate_verify_snapshot(const wire::AppStateVerifySnapshotIn& in) {
  const Keys keys(in.keys);
  as::SyncdSnapshot s;
  s.has_version = true;
  s.version = in.version;
  s.mac = in.mac;
  s.key_id = in.key_id;
  s.records.reserve(in.records.size());
  in.records.for_each([&](const wire::SyncdRecord& r) { s.records.push_back(core_record(r)); });
  as::LtHashState state;
  as::VerifyResult result;
  if (Error e = as::verify_snapshot(s, text(in.name), keys.entries, state, result); e != Error::ok) return rc(e);
  return emit_verified(state, result);
}

}  // namespace wacore::bindings::impl

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/appstate_bindings.inc"
