// Glue (plain wasm exports) for sender keys (src/signal/sender_keys.h) and app-state patch decoding and
// verification (src/appstate/patch.h): marshalling only.
//
// As in signal_bindings.cpp: inputs are offsets into the module's I/O buffer; a call writes its
// results into one output buffer that JS reads through groupsOut() (address, length) and wipes.
// Records are parsed, changed and re-serialized within one call; on error nothing is written.
// Output integers are little-endian u32; a "field" is a u32 length then the bytes.
#include <emscripten.h>
#include <sodium.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "appstate/patch.h"
#include "output.h"
#include "common/error.h"
#include "signal/sender_keys.h"

namespace {

using wacore::Error;
namespace sig = wacore::signal;
namespace as = wacore::appstate;

using wacore::bindings::at;
using wacore::bindings::bytes;
using wacore::bindings::rc;

wacore::bindings::Output g_out;

// --- sender keys ----------------------------------------------------------------------------------

using ParsedRecord =
    wacore::bindings::Parsed<sig::SenderKeyRecord, sig::parse_sender_key_record, sig::wipe_sender_key_record>;

int out_record(const sig::SenderKeyRecord& r) {
  std::string bin;
  sig::serialize_sender_key_record(r, bin);
  return g_out.record(bin);
}

int record_from_json(uintptr_t json, size_t len) {
  g_out.reset();
  sig::SenderKeyRecord r;
  const Error e = sig::sender_key_record_from_json({at<const char>(json), len}, r);
  const int result = e != Error::ok ? rc(e) : out_record(r);
  sig::wipe_sender_key_record(r);
  return result;
}

int record_to_json(uintptr_t rec, size_t len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  std::string json;
  sig::sender_key_record_to_json(pr.record, json);
  g_out.bytes({reinterpret_cast<const uint8_t*>(json.data()), json.size()});
  sodium_memzero(json.data(), json.size());
  return g_out.done();
}

// Output: state count u32, then per state (oldest first): key id u32, iteration u32, has private u8.
int record_info(uintptr_t rec, size_t len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  g_out.u32(static_cast<uint32_t>(pr.record.states.size()));
  for (const sig::SenderKeyState& s : pr.record.states) {
    g_out.u32(s.key_id);
    g_out.u32(s.iteration);
    g_out.u8(s.has_signing_private);
  }
  return g_out.done();
}

// Output: distribution message (field), record.
int create(uintptr_t rec, size_t len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  sig::SenderKeyDistribution d;
  if (Error e = sig::create_sender_key(pr.record, d); e != Error::ok) return rc(e);
  std::vector<uint8_t> wire;
  sig::encode_distribution(d, wire);
  g_out.field(wire);
  sodium_memzero(wire.data(), wire.size());
  sodium_memzero(d.chain_key.data(), d.chain_key.size());
  return out_record(pr.record);
}

// Output: record.
int process(uintptr_t rec, size_t len, uintptr_t msg, size_t msg_len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  sig::SenderKeyDistribution d;
  if (Error e = sig::parse_distribution(bytes(msg, msg_len), d); e != Error::ok) return rc(e);
  sig::process_distribution(pr.record, d);
  sodium_memzero(d.chain_key.data(), d.chain_key.size());
  return out_record(pr.record);
}

// Output: message (field), record.
int encrypt(uintptr_t rec, size_t len, uintptr_t pt, size_t pt_len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  std::vector<uint8_t> msg;
  if (Error e = sig::group_encrypt(pr.record, bytes(pt, pt_len), msg); e != Error::ok) return rc(e);
  g_out.field(msg);
  return out_record(pr.record);
}

// Output: plaintext (field), record.
int decrypt(uintptr_t rec, size_t len, uintptr_t msg, size_t msg_len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  std::vector<uint8_t> pt;
  const Error e = sig::group_decrypt(pr.record, bytes(msg, msg_len), pt);
  if (e != Error::ok) return rc(e);
  g_out.field(pt);
  sodium_memzero(pt.data(), pt.size());
  return out_record(pr.record);
}

// Output: key id u32, iteration u32, chain key 32, signing key 33.
int distribution_info(uintptr_t msg, size_t len) {
  g_out.reset();
  sig::SenderKeyDistribution d;
  if (Error e = sig::parse_distribution(bytes(msg, len), d); e != Error::ok) return rc(e);
  g_out.u32(d.key_id);
  g_out.u32(d.iteration);
  g_out.bytes(d.chain_key);
  g_out.bytes(d.signing_key);
  sodium_memzero(d.chain_key.data(), d.chain_key.size());
  return g_out.done();
}

// Input: key id u32, iteration u32, chain key 32, signing key 33. Output: the message.
int distribution_encode(uintptr_t in) {
  g_out.reset();
  sig::SenderKeyDistribution d;
  std::memcpy(&d.key_id, at(in), 4);
  std::memcpy(&d.iteration, at(in + 4), 4);
  std::memcpy(d.chain_key.data(), at(in + 8), 32);
  std::memcpy(d.signing_key.data(), at(in + 40), 33);
  if (d.signing_key[0] != 0x05) return rc(Error::key_type);
  std::vector<uint8_t> wire;
  sig::encode_distribution(d, wire);
  g_out.bytes(wire);
  sodium_memzero(wire.data(), wire.size());
  sodium_memzero(d.chain_key.data(), d.chain_key.size());
  return g_out.done();
}

// --- app-state patches --------------------------------------------------------------------------------

void out_record_fields(const as::SyncdRecord& r) {
  g_out.field(r.index);
  g_out.field(r.value);
  g_out.field(r.key_id);
}
void out_mutations(const std::vector<as::SyncdMutation>& ms) {
  g_out.u32(static_cast<uint32_t>(ms.size()));
  for (const as::SyncdMutation& m : ms) {
    g_out.u8(static_cast<uint8_t>(m.operation));
    out_record_fields(m.record);
  }
}

// Output: has version u8, version u64 (hi, lo), snapshot MAC, patch MAC, key id (fields), has
// external u8, external (field), has device index u8, device index u32, mutations.
int decode_patch(uintptr_t in, size_t len) {
  g_out.reset();
  as::SyncdPatch p;
  if (Error e = as::decode_patch(bytes(in, len), p); e != Error::ok) return rc(e);
  g_out.u8(p.has_version);
  g_out.u64(p.version);
  g_out.field(p.snapshot_mac);
  g_out.field(p.patch_mac);
  g_out.field(p.key_id);
  g_out.u8(p.has_external);
  g_out.field(p.external_mutations);
  g_out.u8(p.has_device_index);
  g_out.u32(p.device_index);
  out_mutations(p.mutations);
  return g_out.done();
}

// Output: has version u8, version u64, MAC, key id (fields), records (count, then index, value, key id).
int decode_snapshot(uintptr_t in, size_t len) {
  g_out.reset();
  as::SyncdSnapshot s;
  if (Error e = as::decode_snapshot(bytes(in, len), s); e != Error::ok) return rc(e);
  g_out.u8(s.has_version);
  g_out.u64(s.version);
  g_out.field(s.mac);
  g_out.field(s.key_id);
  g_out.u32(static_cast<uint32_t>(s.records.size()));
  for (const as::SyncdRecord& r : s.records) out_record_fields(r);
  return g_out.done();
}

// SyncdMutations (a downloaded externalMutations blob). Output: mutations.
int decode_mutations(uintptr_t in, size_t len) {
  g_out.reset();
  std::vector<as::SyncdMutation> ms;
  if (Error e = as::decode_mutations(bytes(in, len), ms); e != Error::ok) return rc(e);
  out_mutations(ms);
  return g_out.done();
}

// Reads the verify input laid out by npm/lib/appstate.mjs.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;
  std::span<const uint8_t> take(size_t n) {
    if (!ok || static_cast<size_t>(end - p) < n) {
      ok = false;
      return {};
    }
    std::span<const uint8_t> s{p, n};
    p += n;
    return s;
  }
  uint32_t u32() {
    auto s = take(4);
    uint32_t v = 0;
    if (ok) std::memcpy(&v, s.data(), 4);
    return v;
  }
  uint64_t u64() {
    const uint64_t hi = u32();
    return hi << 32 | u32();
  }
  uint8_t u8() {
    auto s = take(1);
    return ok ? s[0] : 0;
  }
  std::span<const uint8_t> field() { return take(u32()); }
};

as::SyncdRecord read_record(Cursor& c) {
  as::SyncdRecord r;
  r.index = c.field();
  r.value = c.field();
  r.key_id = c.field();
  return r;
}

// Input: kind u8 (0 patch, 1 snapshot), strict u8, name (field), keys (count, then key id field and
// 32 bytes of key data each); for a patch the state (version u64, hash 128, count, then index MAC
// and value MAC of each) and the patch (version u64, snapshot MAC, patch MAC, key id, mutations:
// count, then op u8, index, value, key id); for a snapshot (version u64, MAC, key id, records).
// Output: the new state as above, removes without set u32, mutations (count, then op u8,
// SyncActionData field, index field, has value u8, value field, has version u8, version u32).
int verify(uintptr_t in, size_t len) {
  g_out.reset();
  Cursor c{at(in), at(in) + len};
  const uint8_t kind = c.u8();
  as::VerifyOptions options;
  options.strict_remove = c.u8() != 0;
  const auto name_bytes = c.field();
  const std::string_view name{reinterpret_cast<const char*>(name_bytes.data()), name_bytes.size()};
  std::vector<as::KeyEntry> keys(c.ok ? std::min<uint32_t>(c.u32(), 1024) : 0);
  for (as::KeyEntry& k : keys) {
    k.key_id = c.field();
    const auto data = c.take(32);
    if (c.ok) as::expand_keys(data, k.keys);
  }
  as::LtHashState state;
  as::VerifyResult result;
  Error e = Error::ok;
  if (kind == 0) {
    state.version = c.u64();
    const auto h = c.take(as::kLtHashBytes);
    if (c.ok) std::memcpy(state.hash.data(), h.data(), h.size());
    const uint32_t n = c.u32();
    for (uint32_t i = 0; c.ok && i < n; i++) {
      as::IndexValue& v = state.values.emplace_back();
      const auto iv = c.take(64);
      if (c.ok) {
        std::memcpy(v.index_mac.data(), iv.data(), 32);
        std::memcpy(v.value_mac.data(), iv.data() + 32, 32);
      }
    }
    as::SyncdPatch p;
    p.has_version = true;
    p.version = c.u64();
    p.snapshot_mac = c.field();
    p.patch_mac = c.field();
    p.key_id = c.field();
    const uint32_t m = c.u32();
    for (uint32_t i = 0; c.ok && i < m && i < as::kMaxMutations; i++) {
      as::SyncdMutation& mu = p.mutations.emplace_back();
      mu.operation = c.u8() == 1 ? as::Operation::remove : as::Operation::set;
      mu.record = read_record(c);
    }
    if (!c.ok) e = Error::invalid_patch;
    if (e == Error::ok) e = as::normalize_state(state);
    if (e == Error::ok) e = as::verify_patch(state, p, name, keys, options, result);
  } else {
    as::SyncdSnapshot s;
    s.has_version = true;
    s.version = c.u64();
    s.mac = c.field();
    s.key_id = c.field();
    const uint32_t m = c.u32();
    for (uint32_t i = 0; c.ok && i < m && i < as::kMaxMutations; i++) s.records.push_back(read_record(c));
    e = c.ok ? as::verify_snapshot(s, name, keys, state, result) : Error::invalid_patch;
  }
  for (as::KeyEntry& k : keys) sodium_memzero(&k.keys, sizeof k.keys);
  if (e != Error::ok) return rc(e);
  g_out.u64(state.version);
  g_out.bytes(state.hash);
  g_out.u32(static_cast<uint32_t>(state.values.size()));
  for (const as::IndexValue& v : state.values) {
    g_out.bytes(v.index_mac);
    g_out.bytes(v.value_mac);
  }
  g_out.u32(static_cast<uint32_t>(result.removes_without_set));
  g_out.u32(static_cast<uint32_t>(result.mutations.size()));
  for (as::VerifiedMutation& m : result.mutations) {
    g_out.u8(static_cast<uint8_t>(m.operation));
    g_out.field(m.data);
    as::SyncActionData a;
    (void)as::decode_sync_action_data(m.data, a);  // decoded once already during verification
    g_out.field(a.index);
    g_out.u8(a.has_value);
    g_out.field(a.value);
    g_out.u8(a.has_version);
    g_out.u32(static_cast<uint32_t>(a.version));
    sodium_memzero(m.data.data(), m.data.size());
  }
  return g_out.done();
}

uintptr_t groups_out() { return g_out.view(); }

}  // namespace

// Plain wasm exports, called by the JS side as Module._wacore_<name> (see wacore_bindings.cpp).
extern "C" {
EMSCRIPTEN_KEEPALIVE uintptr_t wacore_groupsOut() { return groups_out(); }
EMSCRIPTEN_KEEPALIVE int wacore_groupRecordFromJson(uintptr_t json, size_t len) { return g_out.run([&] { return record_from_json(json, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_groupRecordToJson(uintptr_t rec, size_t len) { return g_out.run([&] { return record_to_json(rec, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_groupRecordInfo(uintptr_t rec, size_t len) { return g_out.run([&] { return record_info(rec, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_groupCreate(uintptr_t rec, size_t len) { return g_out.run([&] { return create(rec, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_groupProcess(uintptr_t rec, size_t len, uintptr_t msg, size_t msg_len) {
  return g_out.run([&] { return process(rec, len, msg, msg_len); });
}
EMSCRIPTEN_KEEPALIVE int wacore_groupEncrypt(uintptr_t rec, size_t len, uintptr_t pt, size_t pt_len) {
  return g_out.run([&] { return encrypt(rec, len, pt, pt_len); });
}
EMSCRIPTEN_KEEPALIVE int wacore_groupDecrypt(uintptr_t rec, size_t len, uintptr_t msg, size_t msg_len) {
  return g_out.run([&] { return decrypt(rec, len, msg, msg_len); });
}
EMSCRIPTEN_KEEPALIVE int wacore_groupDistributionInfo(uintptr_t msg, size_t len) { return g_out.run([&] { return distribution_info(msg, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_groupDistributionEncode(uintptr_t in) { return g_out.run([&] { return distribution_encode(in); }); }
EMSCRIPTEN_KEEPALIVE int wacore_appstateDecodePatch(uintptr_t in, size_t len) { return g_out.run([&] { return decode_patch(in, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_appstateDecodeSnapshot(uintptr_t in, size_t len) { return g_out.run([&] { return decode_snapshot(in, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_appstateDecodeMutations(uintptr_t in, size_t len) { return g_out.run([&] { return decode_mutations(in, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_appstateVerify(uintptr_t in, size_t len) { return g_out.run([&] { return verify(in, len); }); }
}
