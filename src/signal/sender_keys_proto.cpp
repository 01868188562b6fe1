// Parsing the sender-key protobufs through protozero: SenderKeyDistributionMessage, SenderKeyMessage
// and libsignal's SenderKeyRecordStructure (sender_keys_write.cpp writes them).
//
// protozero throws on malformed input, and so does malformed() (proto_read.h) on a field of the wrong type or
// size; every public function here catches and returns an Error.
#include <protozero/pbf_reader.hpp>

#include "common/pbf.h"

#include <cstring>
#include <sodium.h>

#include <algorithm>
#include <new>

#include "signal/proto_read.h"
#include "signal/sender_keys.h"

namespace wacore::signal {
namespace {

using namespace proto_read;

pbf_reader reader(std::span<const uint8_t> in) { return {reinterpret_cast<const char*>(in.data()), in.size()}; }

// libsignal's rule for the version byte: message version 3, lowest supported version at most 3.
void check_version(std::span<const uint8_t> in) {
  if (in.empty() || (in[0] >> 4) != kMessageVersion || (in[0] & 0x0F) > kMessageVersion) malformed();
}

void parse_skdm(std::span<const uint8_t> in, SenderKeyDistribution& out) {
  check_version(in);
  pbf_reader r = reader(in.subspan(1));
  bool id = false, iteration = false, chain = false, signing = false;
  while (pbf_next(r)) {
    switch (r.tag()) {
      case 1: out.key_id = read_u32(r); id = true; break;
      case 2: out.iteration = read_u32(r); iteration = true; break;
      case 3: read_fixed(r, out.chain_key); chain = true; break;
      case 4: read_public_key(r, out.signing_key); signing = true; break;
      default: r.skip();
    }
  }
  if (!id || !iteration || !chain || !signing) malformed();
}

void parse_skmsg(std::span<const uint8_t> in, SenderKeyMessage& out) {
  if (in.size() < 1 + kSenderSignatureBytes) malformed();
  check_version(in);
  const auto signed_part = in.first(in.size() - kSenderSignatureBytes);
  pbf_reader r = reader(signed_part.subspan(1));
  bool id = false, iteration = false, ciphertext = false;
  while (pbf_next(r)) {
    switch (r.tag()) {
      case 1: out.key_id = read_u32(r); id = true; break;
      case 2: out.iteration = read_u32(r); iteration = true; break;
      case 3: out.ciphertext = read_bytes(r); ciphertext = true; break;
      default: r.skip();
    }
  }
  if (!id || !iteration || !ciphertext) malformed();
  out.signed_part = signed_part;
  out.signature = in.last(kSenderSignatureBytes);
}

// SenderKeyStateStructure{senderKeyId=1, senderChainKey{iteration=1, seed=2}=2,
// senderSigningKey{public=1, private=2}=3, senderMessageKeys{iteration=1, seed=2}=4}.
void read_state(pbf_reader r, SenderKeyState& s) {
  bool id = false, chain = false, seed = false, signing = false;
  while (pbf_next(r)) {
    switch (r.tag()) {
      case 1: s.key_id = read_u32(r); id = true; break;
      case 2: {
        pbf_reader c = read_message(r);
        chain = true;
        while (pbf_next(c)) {
          switch (c.tag()) {
            case 1: s.iteration = read_u32(c); break;
            case 2: read_fixed(c, s.chain_key); seed = true; break;
            default: c.skip();
          }
        }
        break;
      }
      case 3: {
        pbf_reader k = read_message(r);
        while (pbf_next(k)) {
          switch (k.tag()) {
            case 1: read_public_key(k, s.signing_public); signing = true; break;
            case 2: read_fixed(k, s.signing_private); s.has_signing_private = true; break;
            default: k.skip();
          }
        }
        break;
      }
      case 4: {
        pbf_reader m = read_message(r);
        SenderMessageKey& mk = s.skipped.emplace_back();
        bool mseed = false;
        while (pbf_next(m)) {
          switch (m.tag()) {
            case 1: mk.iteration = read_u32(m); break;
            case 2: read_fixed(m, mk.seed); mseed = true; break;
            default: m.skip();
          }
        }
        if (!mseed) malformed();
        break;
      }
      default: r.skip();
    }
  }
  if (!id || !chain || !seed || !signing) malformed();
}

}  // namespace

Error parse_distribution(std::span<const uint8_t> in, SenderKeyDistribution& out) {
  try {
    SenderKeyDistribution d;
    parse_skdm(in, d);
    out = d;
    sodium_memzero(d.chain_key.data(), d.chain_key.size());
    return Error::ok;
  } catch (const std::bad_alloc&) {
    return Error::out_of_memory;
  } catch (...) {
    return Error::invalid_message;
  }
}

Error parse_sender_key_message(std::span<const uint8_t> in, SenderKeyMessage& out) {
  try {
    SenderKeyMessage m;
    parse_skmsg(in, m);
    out = m;
    return Error::ok;
  } catch (const std::bad_alloc&) {
    return Error::out_of_memory;
  } catch (...) {
    return Error::invalid_message;
  }
}

Error parse_sender_key_record(std::span<const uint8_t> in, SenderKeyRecord& out) {
  SenderKeyRecord rec;
  try {
    pbf_reader r = reader(in);
    while (pbf_next(r)) {
      if (r.tag() != 1) {
        r.skip();
        continue;
      }
      // A record far over the limit is not a record we wrote or libsignal would keep.
      if (rec.states.size() >= 4 * kMaxSenderKeyStates) malformed();
      read_state(read_message(r), rec.states.emplace_back());
    }
  } catch (const std::bad_alloc&) {
    wipe_sender_key_record(rec);
    return Error::out_of_memory;
  } catch (...) {
    wipe_sender_key_record(rec);
    return Error::invalid_record;
  }
  // libsignal writes the newest state first; we keep Baileys' order, newest last.
  std::reverse(rec.states.begin(), rec.states.end());
  enforce_sender_key_limits(rec);
  wipe_sender_key_record(out);
  out = std::move(rec);
  return Error::ok;
}

}  // namespace wacore::signal
