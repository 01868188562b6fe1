// Writing the sender-key protobufs through protozero (sender_keys_proto.cpp parses them). Writing
// cannot fail; built without exceptions like the rest of the core.
#include <protozero/pbf_writer.hpp>

#include <sodium.h>

#include "signal/sender_keys.h"

namespace wacore::signal {
namespace {

using protozero::pbf_writer;

void add_bytes(pbf_writer& w, uint32_t field, std::span<const uint8_t> b) {
  w.add_bytes(field, reinterpret_cast<const char*>(b.data()), b.size());
}

void assign(std::vector<uint8_t>& out, std::string& buf) {
  out.assign(buf.begin(), buf.end());
  sodium_memzero(buf.data(), buf.size());
}

}  // namespace

void encode_distribution(const SenderKeyDistribution& d, std::vector<uint8_t>& out) {
  std::string buf(1, static_cast<char>(kVersionByte));
  {
    pbf_writer w{buf};
    w.add_uint32(1, d.key_id);
    w.add_uint32(2, d.iteration);
    add_bytes(w, 3, d.chain_key);
    add_bytes(w, 4, d.signing_key);
  }
  assign(out, buf);
}

void encode_sender_key_message(uint32_t key_id, uint32_t iteration, std::span<const uint8_t> ciphertext,
                               std::vector<uint8_t>& out) {
  std::string buf(1, static_cast<char>(kVersionByte));
  {
    pbf_writer w{buf};
    w.add_uint32(1, key_id);
    w.add_uint32(2, iteration);
    add_bytes(w, 3, ciphertext);
  }
  out.assign(buf.begin(), buf.end());
}

void serialize_sender_key_record(const SenderKeyRecord& record, std::string& out) {
  out.clear();
  pbf_writer w{out};
  // Newest first, as libsignal writes it.
  for (auto it = record.states.rbegin(); it != record.states.rend(); ++it) {
    const SenderKeyState& s = *it;
    pbf_writer sw{w, 1};
    sw.add_uint32(1, s.key_id);
    {
      pbf_writer cw{sw, 2};
      cw.add_uint32(1, s.iteration);
      add_bytes(cw, 2, s.chain_key);
    }
    {
      pbf_writer kw{sw, 3};
      add_bytes(kw, 1, s.signing_public);
      if (s.has_signing_private) add_bytes(kw, 2, s.signing_private);
    }
    for (const SenderMessageKey& mk : s.skipped) {
      pbf_writer mw{sw, 4};
      mw.add_uint32(1, mk.iteration);
      add_bytes(mw, 2, mk.seed);
    }
  }
}

}  // namespace wacore::signal
