// The bodies of the Signal 1:1 exports (src/signal/session.h): marshalling only.
//
// Each receives its parsed input layout (bindings/boundary.json; the export itself is generated),
// parses the record it is given (binary RecordStructure; empty = no sessions), runs one functional
// operation and emits its result layout. On error nothing is emitted and the caller's record is
// untouched by construction.
#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "generated/boundary.h"
#include "record_glue.h"
#include "signal/session.h"

namespace wacore::bindings::impl {
namespace {

namespace sig = wacore::signal;

using ParsedRecord = Parsed<sig::Record, sig::parse_record, sig::wipe_record>;

// The result layout with the serialized record as its last field.
template <typename Out>
int emit_with_record(const sig::Record& r, Out& out) {
  std::string bin;
  if (Error e = sig::serialize_record(r, bin); e != Error::ok) return rc(e);
  return emit_serialized(out, bin);
}
int emit_record(const sig::Record& r) {
  wire::RecordOut out;
  return emit_with_record(r, out);
}

// A key pair copied out of the input; the caller wipes it (wipe_pairs).
sig::KeyPair key_pair(const wire::KeyPair& k) {
  sig::KeyPair kp;
  wire::to_core(k, kp);
  return kp;
}
void wipe_pairs(std::initializer_list<sig::KeyPair*> pairs) {
  for (sig::KeyPair* kp : pairs) sodium_memzero(kp->priv.data(), kp->priv.size());
}
sig::PublicKey public_key(std::span<const uint8_t, wire::kPublicKeyBytes> k) {
  sig::PublicKey out;
  std::memcpy(out.data(), k.data(), out.size());
  return out;
}
// Milliseconds since the epoch, clamped to what a record holds.
int64_t ms(uint64_t now) { return now >= static_cast<uint64_t>(sig::kMaxTime) ? sig::kMaxTime : static_cast<int64_t>(now); }

int emit_decrypted(const sig::DecryptResult& r, const sig::Record& record) {
  wire::SignalDecryptOut out;
  out.remote_identity = r.remote_identity;
  out.pre_key_used = r.prekey_used;
  out.plaintext = r.plaintext;
  return emit_with_record(record, out);
}

}  // namespace

int signal_record_from_json(const wire::TextIn& in) {
  return record_from_json<sig::Record>(in, sig::record_from_json, sig::wipe_record, emit_record);
}

int signal_record_to_json(const wire::RecordIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::Record& record) __attribute__((always_inline)) {
    std::string json;
    if (Error e = sig::record_to_json(record, json); e != Error::ok) return rc(e);
    return emit_json(json);
  });
}

int signal_record_info(const wire::RecordIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::Record& record) __attribute__((always_inline)) {
    const sig::Session* open = sig::open_session(record);
    wire::SignalRecordInfoOut out;
    out.has_open_session = open != nullptr;
    if (open != nullptr) {
      out.has_registration_id = open->has_registration_id;
      out.registration_id = open->registration_id;
      out.remote_identity = open->remote_identity;
    }
    out.base_keys = wire::each<wire::SignalBaseKey>(
        record.sessions, [](const sig::Session& s) { return wire::SignalBaseKey{.base_key = s.base_key}; });
    return emit(out);
  });
}

int signal_close_open_session(const wire::RecordTimeIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::Record& record) __attribute__((always_inline)) {
    sig::close_open_session(record, ms(in.now));
    return emit_record(record);
  });
}

int signal_init_outgoing(const wire::SignalInitOutgoingIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::Record& record) __attribute__((always_inline)) {
    sig::PreKeyBundle b;
    wire::to_core(in.bundle, b);
    sig::KeyPair id = key_pair(in.identity);
    const Error e = sig::init_outgoing(record, id, b, ms(in.now));
    wipe_pairs({&id});
    if (e != Error::ok) return rc(e);
    return emit_record(record);
  });
}

int signal_encrypt(const wire::SignalEncryptIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::Record& record) __attribute__((always_inline)) {
    sig::EncryptResult r;
    if (Error e = sig::encrypt(record, public_key(in.identity_key), in.registration_id, in.plaintext, r);
        e != Error::ok) {
      return rc(e);
    }
    wire::SignalEncryptOut out;
    out.type = static_cast<uint8_t>(r.type);
    out.has_registration_id = r.has_registration_id;
    out.registration_id = r.registration_id;
    out.remote_identity = r.remote_identity;
    out.body = r.body;
    return emit_with_record(record, out);
  });
}

int signal_decrypt_whisper(const wire::SignalDecryptWhisperIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::Record& record) __attribute__((always_inline)) {
    sig::DecryptResult r;
    const Error e = sig::decrypt_whisper(record, public_key(in.identity_key), in.message, ms(in.now), r);
    const int result = e != Error::ok ? rc(e) : emit_decrypted(r, record);
    sodium_memzero(r.plaintext.data(), r.plaintext.size());
    return result;
  });
}

int signal_decrypt_pre_key(const wire::SignalDecryptPreKeyIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::Record& record) __attribute__((always_inline)) {
    const wire::PreKeys& k = in.keys;
    sig::KeyPair id = key_pair(in.identity);
    sig::KeyPair s = k.has_signed_pre_key ? key_pair(k.signed_pre_key) : sig::KeyPair{};
    sig::KeyPair o = k.has_pre_key ? key_pair(k.pre_key) : sig::KeyPair{};
    sig::DecryptResult r;
    const Error e = sig::decrypt_prekey(record, id, in.message, k.has_signed_pre_key ? &s : nullptr,
                                        k.has_pre_key ? &o : nullptr, ms(in.now), r);
    wipe_pairs({&id, &s, &o});
    const int result = e != Error::ok ? rc(e) : emit_decrypted(r, record);
    sodium_memzero(r.plaintext.data(), r.plaintext.size());
    return result;
  });
}

// `message` is the PreKeyWhisperMessage's bytes, or empty with its fields in `fields`.
int signal_init_incoming(const wire::SignalInitIncomingIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::Record& record) __attribute__((always_inline)) {
    sig::PreKeyMessage pm;
    if (in.has_fields) {
      wire::to_core(in.fields, pm);
      if (pm.base_key[0] != 0x05 || pm.identity_key[0] != 0x05) return rc(Error::key_type);
    } else if (Error e = sig::parse_prekey_message(in.message, pm); e != Error::ok) {
      return rc(e);
    }
    const wire::PreKeys& k = in.keys;
    sig::KeyPair id = key_pair(in.identity);
    sig::KeyPair s = k.has_signed_pre_key ? key_pair(k.signed_pre_key) : sig::KeyPair{};
    sig::KeyPair o = k.has_pre_key ? key_pair(k.pre_key) : sig::KeyPair{};
    bool created = false;
    const Error e = sig::init_incoming(record, id, pm, k.has_signed_pre_key ? &s : nullptr,
                                       k.has_pre_key ? &o : nullptr, ms(in.now), created);
    wipe_pairs({&id, &s, &o});
    if (e != Error::ok) return rc(e);
    wire::SignalInitIncomingOut out;
    out.created = created;
    return emit_with_record(record, out);
  });
}

int signal_pre_key_info(const wire::SignalPreKeyInfoIn& in) {
  return with_parsed<ParsedRecord>(in.record, [&](sig::Record& record) __attribute__((always_inline)) {
    sig::PreKeyMessage pm;
    if (Error e = sig::parse_prekey_message(in.message, pm); e != Error::ok) return rc(e);
    wire::SignalPreKeyInfoOut out;
    wire::from_core(pm, out.fields);
    out.has_session = sig::has_incoming_session(record, pm.base_key);
    out.message = pm.message;
    return emit(out);
  });
}

}  // namespace wacore::bindings::impl
