// Parsing Signal's protobufs through protozero: WhisperMessage, PreKeyWhisperMessage and the session
// record (proto_write.cpp writes them).
//
// protozero throws on malformed input (truncated field, overlong varint, bad wire type); so does
// `malformed()` (proto_read.h) on a field of the wrong type or size. Every public function here catches and
// returns an Error, and this file is the only one in src/signal built with exceptions.
#include <protozero/pbf_reader.hpp>

#include "common/pbf.h"
#include <protozero/pbf_writer.hpp>

#include <cstring>
#include <exception>
#include <new>
#include <string_view>

#include "signal/proto_fields.h"
#include "signal/proto_read.h"
#include "signal/session.h"

namespace wacore::signal {
namespace {

using namespace fields;

using namespace proto_read;

// --- messages ----------------------------------------------------------------------------------------

bool version_ok(uint8_t b) {
  // libsignal-node's rule: the message's version (high nibble) must be at least 3 and the lowest
  // version its sender supports (low nibble) at most 3.
  return (b >> 4) >= kMessageVersion && (b & 0x0F) <= kMessageVersion;
}

void parse_whisper(std::span<const uint8_t> in, WhisperMessage& out) {
  if (in.size() < 1 + kMacBytes || !version_ok(in[0])) malformed();
  const auto proto = in.subspan(1, in.size() - 1 - kMacBytes);
  pbf_reader r{reinterpret_cast<const char*>(proto.data()), proto.size()};
  bool key = false, counter = false, ciphertext = false;
  out.previous_counter = 0;
  while (pbf_next(r)) {
    switch (r.tag()) {
      case 1: read_public_key(r, out.ratchet_key); key = true; break;
      case 2: out.counter = read_u32(r); counter = true; break;
      case 3: out.previous_counter = read_u32(r); break;
      case 4: out.ciphertext = read_bytes(r); ciphertext = true; break;
      default: r.skip();
    }
  }
  if (!key || !counter || !ciphertext) malformed();
  out.signed_part = in.first(in.size() - kMacBytes);
  out.mac = in.last(kMacBytes);
}

void parse_prekey(std::span<const uint8_t> in, PreKeyMessage& out) {
  if (in.size() < 1 || !version_ok(in[0])) malformed();
  const auto proto = in.subspan(1);
  pbf_reader r{reinterpret_cast<const char*>(proto.data()), proto.size()};
  bool base = false, identity = false, message = false, signed_id = false;
  out = PreKeyMessage{};
  while (pbf_next(r)) {
    switch (r.tag()) {
      case 1: out.prekey_id = read_u32(r); out.has_prekey_id = true; break;
      case 2: read_public_key(r, out.base_key); base = true; break;
      case 3: read_public_key(r, out.identity_key); identity = true; break;
      case 4: out.message = read_bytes(r); message = true; break;
      case 5: out.registration_id = read_u32(r); out.has_registration_id = true; break;
      case 6: out.signed_prekey_id = read_u32(r); signed_id = true; break;
      default: r.skip();
    }
  }
  if (!base || !identity || !message || !signed_id) malformed();
}

// --- records -----------------------------------------------------------------------------------------
#include "signal/proto_fields.h"

void read_message_key(pbf_reader r, MessageKey& mk) {
  bool index = false, seed = false, cipher = false, mac = false, iv = false;
  while (pbf_next(r)) {
    switch (r.tag()) {
      case kMkIndex: mk.index = read_u32(r); index = true; break;
      case kMkCipher: read_fixed(r, mk.cipher_key); cipher = true; break;
      case kMkMac: read_fixed(r, mk.mac_key); mac = true; break;
      case kMkIv: read_fixed(r, mk.iv); iv = true; break;
      case kMkSeed: read_fixed(r, mk.seed); seed = true; break;
      default: r.skip();
    }
  }
  mk.has_seed = seed;
  if (!index || (!seed && !(cipher && mac && iv))) malformed();
}

// Reads a Chain; `priv` (sender chain only) receives the ratchet private key. Returns whether the
// chain has a chain key (a sender entry without one holds only the ratchet key pair).
bool read_chain(pbf_reader r, Chain& c, Key32* priv, bool& has_priv) {
  bool key = false, has_chain_key = false;
  has_priv = false;
  while (pbf_next(r)) {
    switch (r.tag()) {
      case kChainRatchetKey: read_public_key(r, c.ratchet_key); key = true; break;
      case kChainRatchetPrivate:
        if (priv == nullptr) malformed();
        read_fixed(r, *priv);
        has_priv = true;
        break;
      case kChainKey: {
        expect(r, pbf_wire_type::length_delimited);
        pbf_reader k = r.get_message();
        has_chain_key = true;
        uint32_t index = 0;
        while (pbf_next(k)) {
          switch (k.tag()) {
            case kChainKeyIndex: index = read_u32(k); break;
            case kChainKeyKey: read_fixed(k, c.key); c.has_key = true; break;
            default: k.skip();
          }
        }
        c.counter = static_cast<int64_t>(index) - 1;
        break;
      }
      case kChainMessageKeys: {
        expect(r, pbf_wire_type::length_delimited);
        read_message_key(r.get_message(), c.skipped.emplace_back());
        break;
      }
      default: r.skip();
    }
  }
  if (!key) malformed();
  return has_chain_key;
}

void read_session(pbf_reader r, Session& s) {
  bool identity = false, root = false, base = false, sender = false, last_remote = false;
  while (pbf_next(r)) {
    switch (r.tag()) {
      case kSessionVersion:
        if (read_u32(r) != kMessageVersion) malformed();
        break;
      case kRemoteIdentity: read_public_key(r, s.remote_identity); identity = true; break;
      case kRootKey: read_fixed(r, s.root_key); root = true; break;
      case kPreviousCounter: s.previous_counter = read_u32(r); break;
      case kSenderChain: {
        expect(r, pbf_wire_type::length_delimited);
        bool has_priv = false;
        Chain c;
        s.has_sender = read_chain(r.get_message(), c, &s.ratchet.priv, has_priv);
        if (!has_priv) malformed();
        s.ratchet.pub = c.ratchet_key;
        if (s.has_sender) s.sender = std::move(c);
        sender = true;
        break;
      }
      case kReceiverChains: {
        expect(r, pbf_wire_type::length_delimited);
        bool has_priv = false;
        Chain& c = s.receivers.emplace_back();
        if (!read_chain(r.get_message(), c, nullptr, has_priv)) malformed();
        break;
      }
      case kPendingPreKey: {
        expect(r, pbf_wire_type::length_delimited);
        pbf_reader p = r.get_message();
        bool pbase = false;
        while (pbf_next(p)) {
          switch (p.tag()) {
            case kPendingPreKeyId: s.pending.prekey_id = read_u32(p); s.pending.has_prekey_id = true; break;
            case kPendingBaseKey: read_public_key(p, s.pending.base_key); pbase = true; break;
            case kPendingSignedId: s.pending.signed_prekey_id = read_u32(p); break;
            default: p.skip();
          }
        }
        if (!pbase) malformed();
        s.has_pending = true;
        break;
      }
      case kRemoteRegistrationId:
        s.registration_id = read_u32(r);
        s.has_registration_id = true;
        break;
      case kAliceBaseKey: read_public_key(r, s.base_key); base = true; break;
      case kLastRemoteRatchet: read_public_key(r, s.last_remote_ratchet); last_remote = true; break;
      case kClosed: expect(r, pbf_wire_type::varint); s.closed = r.get_sint64(); break;
      case kUsed: expect(r, pbf_wire_type::varint); s.used = r.get_int64(); break;
      case kCreated: expect(r, pbf_wire_type::varint); s.created = r.get_int64(); break;
      case kBaseKeyOurs:  // not get_bool: it reads the value's first byte before checking the end
        expect(r, pbf_wire_type::varint);
        s.base_key_ours = r.get_uint64() != 0;
        break;
      case kPreviousCounterNegative: expect(r, pbf_wire_type::varint); s.previous_counter = r.get_sint64(); break;
      default: r.skip();
    }
  }
  if (!identity || !root || !base || !sender) malformed();
  if (!last_remote) {
    // A record from libsignal: the newest receiving chain's key is the last remote ratchet key.
    if (s.receivers.empty()) malformed();
    s.last_remote_ratchet = s.receivers.back().ratchet_key;
  }
  // The JSON reader's bounds, so every record accepted here also exports and re-imports.
  const auto time = [](int64_t t, int64_t lo) { return t >= lo && t <= kMaxTime; };
  if (!time(s.closed, -1) || !time(s.used, 0) || !time(s.created, 0)) malformed();
}

}  // namespace

Error parse_whisper_message(std::span<const uint8_t> in, WhisperMessage& out) {
  try {
    parse_whisper(in, out);
    return Error::ok;
  } catch (const std::bad_alloc&) {
    return Error::out_of_memory;
  } catch (...) {
    return Error::invalid_message;
  }
}

Error parse_prekey_message(std::span<const uint8_t> in, PreKeyMessage& out) {
  try {
    parse_prekey(in, out);
    return Error::ok;
  } catch (const std::bad_alloc&) {
    return Error::out_of_memory;
  } catch (...) {
    return Error::invalid_message;
  }
}

Error parse_record(std::span<const uint8_t> in, Record& out) {
  try {
    Record rec;
    pbf_reader r{reinterpret_cast<const char*>(in.data()), in.size()};
    size_t open = 0;
    while (pbf_next(r)) {
      if (r.tag() != 1 && r.tag() != 2) {
        r.skip();
        continue;
      }
      expect(r, pbf_wire_type::length_delimited);
      if (rec.sessions.size() > kMaxArchivedSessions + 1) malformed();
      Session& s = rec.sessions.emplace_back();
      read_session(r.get_message(), s);
      // Only the current session (field 1) may be open; libsignal's previous sessions are closed.
      if (r.tag() == 2 && s.open()) s.closed = 0;
      if (s.open() && ++open > 1) malformed();
    }
    enforce_limits(rec);
    out = std::move(rec);
    return Error::ok;
  } catch (const std::bad_alloc&) {
    return Error::out_of_memory;
  } catch (...) {
    return Error::invalid_record;
  }
}

}  // namespace wacore::signal
