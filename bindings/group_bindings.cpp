// The bodies of the sender-key exports (src/signal/sender_keys.h): marshalling only.
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

#include "common/error.h"
#include "generated/boundary.h"
#include "record_glue.h"
#include "signal/sender_keys.h"

namespace wacore::bindings::impl {
namespace {

namespace sig = wacore::signal;

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
  wire::SenderKeyDistribution out;
  wire::from_core(d, out);
  const int result = emit(out);
  sodium_memzero(d.chain_key.data(), d.chain_key.size());
  return result;
}

int group_distribution_encode(const wire::SenderKeyDistribution& in) {
  if (in.signing_key[0] != 0x05) return rc(Error::key_type);  // before the chain key is copied anywhere
  sig::SenderKeyDistribution d;
  wire::to_core(in, d);
  std::vector<uint8_t> wire;
  sig::encode_distribution(d, wire);
  const int result = emit(wire::BytesOut{.bytes = wire});
  sodium_memzero(wire.data(), wire.size());
  sodium_memzero(d.chain_key.data(), d.chain_key.size());
  return result;
}

}  // namespace wacore::bindings::impl
