// Glue (plain wasm exports) for Signal 1:1 sessions (src/signal/session.h): marshalling only.
//
// Inputs are offsets into the module's I/O buffer (see wacore_bindings.cpp). Each call parses the
// record it is given (binary RecordStructure; empty = no sessions), runs one functional operation,
// and on success writes its results into one output buffer that the JS side reads through
// signalOut() (address and length) and then wipes; on error nothing is written and the caller's
// record is untouched by construction. The output buffer is reused, so steady-state calls do not
// grow memory.
#include <emscripten.h>
#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "output.h"
#include "common/error.h"
#include "signal/session.h"

namespace {

using wacore::Error;
namespace sig = wacore::signal;

using wacore::bindings::at;
using wacore::bindings::bytes;
using wacore::bindings::rc;

// Where every call of this file puts its results (output.h).
wacore::bindings::Output g_out;

using ParsedRecord = wacore::bindings::Parsed<sig::Record, sig::parse_record, sig::wipe_record>;

// Appends the serialized record as the last field.
int out_record(const sig::Record& r) {
  std::string bin;
  if (Error e = sig::serialize_record(r, bin); e != Error::ok) return rc(e);
  return g_out.record(bin);
}

// Key pairs travel as pub (33) then priv (32).
sig::KeyPair key_pair(uintptr_t p) {
  sig::KeyPair kp;
  std::memcpy(kp.pub.data(), at(p), 33);
  std::memcpy(kp.priv.data(), at(p + 33), 32);
  return kp;
}
sig::PublicKey public_key(uintptr_t p) {
  sig::PublicKey k;
  std::memcpy(k.data(), at(p), 33);
  return k;
}
uint32_t u32(uintptr_t p) {
  uint32_t v;
  std::memcpy(&v, at(p), 4);
  return v;
}
// The JS layer passes a checked integer in 0..2^53; clamped again here (NaN to 0) so no cast is out of range.
int64_t ms(double now) {
  if (!(now > 0)) return 0;
  if (now >= static_cast<double>(sig::kMaxTime)) return sig::kMaxTime;
  return static_cast<int64_t>(now);
}

int record_from_json(uintptr_t json, size_t len) {
  g_out.reset();
  sig::Record r;
  Error e = sig::record_from_json({at<const char>(json), len}, r);
  if (e != Error::ok) return rc(e);
  return out_record(r);
}

int record_to_json(uintptr_t rec, size_t len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  std::string json;
  if (Error e = sig::record_to_json(pr.record, json); e != Error::ok) return rc(e);
  g_out.bytes({reinterpret_cast<const uint8_t*>(json.data()), json.size()});
  sodium_memzero(json.data(), json.size());
  return g_out.done();
}

// Output: has_open u8, has_registration u8, registration u32, remote identity 33, session count u32,
// then the base keys (33 each) of the sessions, in record order.
int record_info(uintptr_t rec, size_t len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  const sig::Session* open = sig::open_session(pr.record);
  g_out.u8(open != nullptr);
  g_out.u8(open != nullptr && open->has_registration_id);
  g_out.u32(open != nullptr ? open->registration_id : 0);
  sig::PublicKey none{};
  g_out.bytes(open != nullptr ? open->remote_identity : none);
  g_out.u32(static_cast<uint32_t>(pr.record.sessions.size()));
  for (const sig::Session& s : pr.record.sessions) g_out.bytes(s.base_key);
  return g_out.done();
}

int close_open_session(uintptr_t rec, size_t len, double now) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  sig::close_open_session(pr.record, ms(now));
  return out_record(pr.record);
}

// bundle: registration u32, identity 33, signed id u32, signed key 33, signature 64, has prekey u8,
// prekey id u32, prekey 33 (175 bytes). Output: the record.
int init_outgoing(uintptr_t rec, size_t len, uintptr_t identity, uintptr_t bundle, double now) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  sig::PreKeyBundle b;
  b.registration_id = u32(bundle);
  b.identity = public_key(bundle + 4);
  b.signed_prekey_id = u32(bundle + 37);
  b.signed_prekey = public_key(bundle + 41);
  std::memcpy(b.signature.data(), at(bundle + 74), 64);
  b.has_prekey = *at(bundle + 138) != 0;
  b.prekey_id = u32(bundle + 139);
  b.prekey = public_key(bundle + 143);
  sig::KeyPair id = key_pair(identity);
  const Error e = sig::init_outgoing(pr.record, id, b, ms(now));
  sodium_memzero(id.priv.data(), 32);
  if (e != Error::ok) return rc(e);
  return out_record(pr.record);
}

// Output: type u8, has registration u8, registration u32, remote identity 33, body (field), record.
int encrypt(uintptr_t rec, size_t len, uintptr_t identity_pub, uint32_t our_registration, uintptr_t pt,
            size_t pt_len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  sig::EncryptResult r;
  if (Error e = sig::encrypt(pr.record, public_key(identity_pub), our_registration, bytes(pt, pt_len), r);
      e != Error::ok) {
    return rc(e);
  }
  g_out.u8(static_cast<uint8_t>(r.type));
  g_out.u8(r.has_registration_id);
  g_out.u32(r.registration_id);
  g_out.bytes(r.remote_identity);
  g_out.field(r.body);
  return out_record(pr.record);
}

// Output: remote identity 33, prekey used u8, plaintext (field), record.
int finish_decrypt(const sig::DecryptResult& r, const sig::Record& record) {
  g_out.bytes(r.remote_identity);
  g_out.u8(r.prekey_used);
  g_out.field(r.plaintext);
  return out_record(record);
}

int decrypt_whisper(uintptr_t rec, size_t len, uintptr_t identity_pub, uintptr_t msg, size_t msg_len, double now) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  sig::DecryptResult r;
  const Error e = sig::decrypt_whisper(pr.record, public_key(identity_pub), bytes(msg, msg_len), ms(now), r);
  const int result = e != Error::ok ? rc(e) : finish_decrypt(r, pr.record);
  sodium_memzero(r.plaintext.data(), r.plaintext.size());
  return result;
}

// Key pairs for the pre-keys: nullptr when the flag is 0.
int decrypt_prekey(uintptr_t rec, size_t len, uintptr_t identity, uintptr_t msg, size_t msg_len, uintptr_t spk,
                   int has_spk, uintptr_t opk, int has_opk, double now) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  sig::KeyPair id = key_pair(identity);
  sig::KeyPair s = has_spk ? key_pair(spk) : sig::KeyPair{};
  sig::KeyPair o = has_opk ? key_pair(opk) : sig::KeyPair{};
  sig::DecryptResult r;
  const Error e = sig::decrypt_prekey(pr.record, id, bytes(msg, msg_len), has_spk ? &s : nullptr,
                                      has_opk ? &o : nullptr, ms(now), r);
  for (auto* kp : {&id, &s, &o}) sodium_memzero(kp->priv.data(), 32);
  const int result = e != Error::ok ? rc(e) : finish_decrypt(r, pr.record);
  sodium_memzero(r.plaintext.data(), r.plaintext.size());
  return result;
}

// SessionBuilder.initIncoming alone. Output: created u8, record.
// `msg` is the PreKeyWhisperMessage's bytes, or with msg_len == 0 its fields as libsignal-node's
// decoded object has them: has prekey id u8, prekey id u32, signed id u32, has registration u8,
// registration u32, base key 33, identity key 33 (80 bytes).
int init_incoming(uintptr_t rec, size_t len, uintptr_t identity, uintptr_t msg, size_t msg_len, uintptr_t spk,
                  int has_spk, uintptr_t opk, int has_opk, double now) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  sig::PreKeyMessage pm;
  if (msg_len == 0) {
    pm.has_prekey_id = *at(msg) != 0;
    pm.prekey_id = u32(msg + 1);
    pm.signed_prekey_id = u32(msg + 5);
    pm.has_registration_id = *at(msg + 9) != 0;
    pm.registration_id = u32(msg + 10);
    pm.base_key = public_key(msg + 14);
    pm.identity_key = public_key(msg + 47);
    if (pm.base_key[0] != 0x05 || pm.identity_key[0] != 0x05) return rc(Error::key_type);
  } else if (Error e = sig::parse_prekey_message(bytes(msg, msg_len), pm); e != Error::ok) {
    return rc(e);
  }
  sig::KeyPair id = key_pair(identity);
  sig::KeyPair s = has_spk ? key_pair(spk) : sig::KeyPair{};
  sig::KeyPair o = has_opk ? key_pair(opk) : sig::KeyPair{};
  bool created = false;
  const Error e = sig::init_incoming(pr.record, id, pm, has_spk ? &s : nullptr, has_opk ? &o : nullptr, ms(now),
                                     created);
  for (auto* kp : {&id, &s, &o}) sodium_memzero(kp->priv.data(), 32);
  if (e != Error::ok) return rc(e);
  g_out.u8(created);
  return out_record(pr.record);
}

// Parses a PreKeyWhisperMessage. Output: has prekey id u8, prekey id u32, signed id u32,
// has registration u8, registration u32, base key 33, identity 33, has session u8 (the record
// already holds the session this message starts), inner message (field).
int prekey_info(uintptr_t rec, size_t len, uintptr_t msg, size_t msg_len) {
  g_out.reset();
  ParsedRecord pr(rec, len);
  if (pr.error != Error::ok) return rc(pr.error);
  sig::PreKeyMessage pm;
  if (Error e = sig::parse_prekey_message(bytes(msg, msg_len), pm); e != Error::ok) return rc(e);
  g_out.u8(pm.has_prekey_id);
  g_out.u32(pm.prekey_id);
  g_out.u32(pm.signed_prekey_id);
  g_out.u8(pm.has_registration_id);
  g_out.u32(pm.registration_id);
  g_out.bytes(pm.base_key);
  g_out.bytes(pm.identity_key);
  g_out.u8(sig::has_incoming_session(pr.record, pm.base_key));
  g_out.field(pm.message);
  return g_out.done();
}

uintptr_t signal_out() { return g_out.view(); }

}  // namespace

// Plain wasm exports, called by the JS side as Module._wacore_<name> (see wacore_bindings.cpp).
extern "C" {
EMSCRIPTEN_KEEPALIVE uintptr_t wacore_signalOut() { return signal_out(); }
EMSCRIPTEN_KEEPALIVE int wacore_signalRecordFromJson(uintptr_t json, size_t len) { return g_out.run([&] { return record_from_json(json, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_signalRecordToJson(uintptr_t rec, size_t len) { return g_out.run([&] { return record_to_json(rec, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_signalRecordInfo(uintptr_t rec, size_t len) { return g_out.run([&] { return record_info(rec, len); }); }
EMSCRIPTEN_KEEPALIVE int wacore_signalCloseOpenSession(uintptr_t rec, size_t len, double now) {
  return g_out.run([&] { return close_open_session(rec, len, now); });
}
EMSCRIPTEN_KEEPALIVE int wacore_signalInitOutgoing(uintptr_t rec, size_t len, uintptr_t identity, uintptr_t bundle,
                                                   double now) {
  return g_out.run([&] { return init_outgoing(rec, len, identity, bundle, now); });
}
EMSCRIPTEN_KEEPALIVE int wacore_signalInitIncoming(uintptr_t rec, size_t len, uintptr_t identity, uintptr_t msg,
                                                   size_t msg_len, uintptr_t spk, int has_spk, uintptr_t opk,
                                                   int has_opk, double now) {
  return g_out.run([&] { return init_incoming(rec, len, identity, msg, msg_len, spk, has_spk, opk, has_opk, now); });
}
EMSCRIPTEN_KEEPALIVE int wacore_signalEncrypt(uintptr_t rec, size_t len, uintptr_t identity_pub,
                                              uint32_t our_registration, uintptr_t pt, size_t pt_len) {
  return g_out.run([&] { return encrypt(rec, len, identity_pub, our_registration, pt, pt_len); });
}
EMSCRIPTEN_KEEPALIVE int wacore_signalDecryptWhisper(uintptr_t rec, size_t len, uintptr_t identity_pub, uintptr_t msg,
                                                     size_t msg_len, double now) {
  return g_out.run([&] { return decrypt_whisper(rec, len, identity_pub, msg, msg_len, now); });
}
EMSCRIPTEN_KEEPALIVE int wacore_signalDecryptPreKey(uintptr_t rec, size_t len, uintptr_t identity, uintptr_t msg,
                                                    size_t msg_len, uintptr_t spk, int has_spk, uintptr_t opk,
                                                    int has_opk, double now) {
  return g_out.run([&] { return decrypt_prekey(rec, len, identity, msg, msg_len, spk, has_spk, opk, has_opk, now); });
}
EMSCRIPTEN_KEEPALIVE int wacore_signalPreKeyInfo(uintptr_t rec, size_t len, uintptr_t msg, size_t msg_len) {
  return g_out.run([&] { return prekey_info(rec, len, msg, msg_len); });
}
}
