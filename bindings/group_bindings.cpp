// The bodies of the sender-key exports (src/signal/sender_keys.h) and of the app-state patch
// decoding and verification exports (src/appstate/patch.h): marshalling only.
//
// As in signal_bindings.cpp: each receives its parsed input layout (bindings/boundary.json) and
// emits its result layout. Records are parsed, changed and re-serialized within one call; on error
// nothing is emitted.
#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "appstate/patch.h"
#include "common/error.h"
#include "generated/boundary.h"
#include "record_glue.h"
#include "signal/sender_keys.h"

namespace wacore::bindings::impl {
namespace {

namespace sig = wacore::signal;
namespace as = wacore::appstate;

using ParsedRecord = Parsed<sig::SenderKeyRecord, sig::parse_sender_key_record, sig::wipe_sender_key_record>;


// The result layout with the serialized record as its last field.
template <typename Out>
int emit_with_record(const sig::SenderKeyRecord& r, Out& out) {
  std::string bin;
  sig::serialize_sender_key_record(r, bin);
  return emit_serialized(out, bin);
}
int emit_record(const sig::SenderKeyRecord& r) {
  wire::RecordOut out;
  return emit_with_record(r, out);
}

}  // namespace

// --- sender keys ----------------------------------------------------------------------------------

int group_record_from_json(const wire::TextIn& in) {
  return record_from_json<sig::SenderKeyRecord>(in, sig::sender_key_record_from_json, sig::wipe_sender_key_record,
                                                emit_record);
}

int group_record_to_json(const wire::RecordIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::SenderKeyRecord& record) __attribute__((always_inline)) {
    std::string json;
    sig::sender_key_record_to_json(record, json);
    return emit_json(json);
  });
}

int group_record_info(const wire::RecordIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::SenderKeyRecord& record) __attribute__((always_inline)) {
    return emit(wire::SenderKeyRecordInfoOut{.states = wire::each<wire::SenderKeyStateInfo>(
                                                 record.states, [](const sig::SenderKeyState& s) {
                                                   return wire::SenderKeyStateInfo{s.key_id, s.iteration, s.has_signing_private};
                                                 })});
  });
}

int group_create(const wire::RecordIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::SenderKeyRecord& record) __attribute__((always_inline)) {
    sig::SenderKeyDistribution d;
    if (Error e = sig::create_sender_key(record, d); e != Error::ok) return rc(e);
    std::vector<uint8_t> wire;
    sig::encode_distribution(d, wire);
    wire::MessageRecordOut out;
    out.message = wire;
    const int result = emit_with_record(record, out);
    sodium_memzero(wire.data(), wire.size());
    sodium_memzero(d.chain_key.data(), d.chain_key.size());
    return result;
  });
}

int group_process(const wire::RecordMessageIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::SenderKeyRecord& record) __attribute__((always_inline)) {
    sig::SenderKeyDistribution d;
    if (Error e = sig::parse_distribution(in.message, d); e != Error::ok) return rc(e);
    sig::process_distribution(record, d);
    sodium_memzero(d.chain_key.data(), d.chain_key.size());
    return emit_record(record);
  });
}

int group_encrypt(const wire::RecordMessageIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::SenderKeyRecord& record) __attribute__((always_inline)) {
    std::vector<uint8_t> msg;
    if (Error e = sig::group_encrypt(record, in.message, msg); e != Error::ok) return rc(e);
    wire::MessageRecordOut out;
    out.message = msg;
    return emit_with_record(record, out);
  });
}

int group_decrypt(const wire::RecordMessageIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::SenderKeyRecord& record) __attribute__((always_inline)) {
    std::vector<uint8_t> pt;
    const Error e = sig::group_decrypt(record, in.message, pt);
    if (e != Error::ok) return rc(e);
    wire::MessageRecordOut out;
    out.message = pt;
    const int result = emit_with_record(record, out);
    sodium_memzero(pt.data(), pt.size());
    return result;
  });
}

int group_distribution_info(const wire::BytesIn& in) {
  sig::SenderKeyDistribution d;
  if (Error e = sig::parse_distribution(in.bytes, d); e != Error::ok) return rc(e);
  const int result = emit(wire::SenderKeyDistribution{
      .key_id = d.key_id, .iteration = d.iteration, .chain_key = d.chain_key, .signing_key = d.signing_key});
  sodium_memzero(d.chain_key.data(), d.chain_key.size());
  return result;
}

int group_distribution_encode(const wire::SenderKeyDistribution& in) {
  if (in.signing_key[0] != 0x05) return rc(Error::key_type);  // before the chain key is copied anywhere
  sig::SenderKeyDistribution d;
  d.key_id = in.key_id;
  d.iteration = in.iteration;
  std::memcpy(d.chain_key.data(), in.chain_key.data(), d.chain_key.size());
  std::memcpy(d.signing_key.data(), in.signing_key.data(), d.signing_key.size());
  std::vector<uint8_t> wire;
  sig::encode_distribution(d, wire);
  const int result = emit(wire::BytesOut{.bytes = wire});
  sodium_memzero(wire.data(), wire.size());
  sodium_memzero(d.chain_key.data(), d.chain_key.size());
  return result;
}

// --- app-state patches --------------------------------------------------------------------------------
namespace {

wire::SyncdRecord wire_record(const as::SyncdRecord& r) { return {.index = r.index, .value = r.value, .key_id = r.key_id}; }
as::SyncdRecord core_record(const wire::SyncdRecord& r) { return {.index = r.index, .value = r.value, .key_id = r.key_id}; }

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
                                               return wire::IndexValue{.index_mac = v.index_mac, .value_mac = v.value_mac};
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
  in.values.for_each([&](const wire::IndexValue& v) {
    as::IndexValue& iv = state.values.emplace_back();
    std::memcpy(iv.index_mac.data(), v.index_mac.data(), iv.index_mac.size());
    std::memcpy(iv.value_mac.data(), v.value_mac.data(), iv.value_mac.size());
  });
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
