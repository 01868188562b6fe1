// Writing Signal's protobufs through protozero (proto.cpp parses them). Writing cannot fail on any
// input; this file is built without exceptions, like the rest of the core.
#include <protozero/pbf_writer.hpp>

#include <string>

#include "signal/proto_fields.h"
#include "signal/session.h"

namespace wacore::signal {
namespace {

using namespace fields;
using protozero::pbf_writer;

void add_bytes(pbf_writer& w, uint32_t field, std::span<const uint8_t> b) {
  w.add_bytes(field, reinterpret_cast<const char*>(b.data()), b.size());
}

void write_chain(pbf_writer& w, uint32_t field, const Chain& c, const Key32* priv) {
  pbf_writer cw{w, field};
  add_bytes(cw, kChainRatchetKey, c.ratchet_key);
  if (priv != nullptr) add_bytes(cw, kChainRatchetPrivate, *priv);
  {
    pbf_writer kw{cw, kChainKey};
    kw.add_uint32(kChainKeyIndex, static_cast<uint32_t>(c.counter + 1));
    if (c.has_key) add_bytes(kw, kChainKeyKey, c.key);
  }
  for (const MessageKey& mk : c.skipped) {
    pbf_writer mw{cw, kChainMessageKeys};
    mw.add_uint32(kMkIndex, mk.index);
    if (mk.has_seed) {
      add_bytes(mw, kMkSeed, mk.seed);
    } else {
      add_bytes(mw, kMkCipher, mk.cipher_key);
      add_bytes(mw, kMkMac, mk.mac_key);
      add_bytes(mw, kMkIv, mk.iv);
    }
  }
}

void write_session(pbf_writer& w, uint32_t field, const Session& s) {
  pbf_writer sw{w, field};
  sw.add_uint32(kSessionVersion, kMessageVersion);
  add_bytes(sw, kRemoteIdentity, s.remote_identity);
  add_bytes(sw, kRootKey, s.root_key);
  if (s.previous_counter >= 0) sw.add_uint32(kPreviousCounter, static_cast<uint32_t>(s.previous_counter));
  if (s.has_sender) {
    write_chain(sw, kSenderChain, s.sender, &s.ratchet.priv);
  } else {
    // No sending chain yet (a responder before its first reply): the ratchet key pair alone.
    pbf_writer cw{sw, kSenderChain};
    add_bytes(cw, kChainRatchetKey, s.ratchet.pub);
    add_bytes(cw, kChainRatchetPrivate, s.ratchet.priv);
  }
  for (const Chain& c : s.receivers) write_chain(sw, kReceiverChains, c, nullptr);
  if (s.has_pending) {
    pbf_writer pw{sw, kPendingPreKey};
    if (s.pending.has_prekey_id) pw.add_uint32(kPendingPreKeyId, s.pending.prekey_id);
    add_bytes(pw, kPendingBaseKey, s.pending.base_key);
    pw.add_int32(kPendingSignedId, static_cast<int32_t>(s.pending.signed_prekey_id));
  }
  if (s.has_registration_id) sw.add_uint32(kRemoteRegistrationId, s.registration_id);
  add_bytes(sw, kAliceBaseKey, s.base_key);
  add_bytes(sw, kLastRemoteRatchet, s.last_remote_ratchet);
  sw.add_sint64(kClosed, s.closed);
  sw.add_int64(kUsed, s.used);
  sw.add_int64(kCreated, s.created);
  sw.add_bool(kBaseKeyOurs, s.base_key_ours);
  if (s.previous_counter < 0) sw.add_sint64(kPreviousCounterNegative, s.previous_counter);
}

}  // namespace

Error encode_whisper(const PublicKey& ratchet_key, uint32_t counter, uint32_t previous_counter,
                     std::span<const uint8_t> ciphertext, std::vector<uint8_t>& out) {
  std::string buf(1, static_cast<char>(kVersionByte));
  pbf_writer w{buf};
  add_bytes(w, 1, ratchet_key);
  w.add_uint32(2, counter);
  w.add_uint32(3, previous_counter);
  add_bytes(w, 4, ciphertext);
  out.assign(buf.begin(), buf.end());
  return Error::ok;
}

Error encode_prekey(const PendingPreKey& pending, const PublicKey& identity, uint32_t registration_id,
                    std::span<const uint8_t> whisper, std::vector<uint8_t>& out) {
  std::string buf(1, static_cast<char>(kVersionByte));
  pbf_writer w{buf};
  // libsignal-node writes preKeyId only when it is set and non-zero.
  if (pending.has_prekey_id && pending.prekey_id != 0) w.add_uint32(1, pending.prekey_id);
  add_bytes(w, 2, pending.base_key);
  add_bytes(w, 3, identity);
  add_bytes(w, 4, whisper);
  w.add_uint32(5, registration_id);
  w.add_uint32(6, pending.signed_prekey_id);
  out.assign(buf.begin(), buf.end());
  return Error::ok;
}

Error serialize_record(const Record& record, std::string& out) {
  out.clear();
  pbf_writer w{out};
  for (const Session& s : record.sessions) write_session(w, s.open() ? 1 : 2, s);
  return Error::ok;
}

}  // namespace wacore::signal
