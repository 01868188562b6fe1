// The protobuf messages of WhatsApp's Noise handshake (docs/protocol.md §5), read and written with
// protozero. protozero throws on malformed input, and every parser here catches and returns
// Error::noise_message or Error::noise_cert instead; a failed allocation goes on to the caller.
//
//   HandshakeMessage { clientHello = 2, serverHello = 3, clientFinish = 4 }
//   clientHello / serverHello { ephemeral = 1, static = 2, payload = 3 }
//   clientFinish { static = 1, payload = 2 }
//   CertChain { leaf = 1, intermediate = 2 }, NoiseCertificate { details = 1, signature = 2 }
//   Details { serial = 1, issuerSerial = 2, key = 3, notBefore = 4, notAfter = 5 }
//
// Parsed byte fields are views into the input: the input must outlive them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"

namespace wacore::noise::proto {

using View = std::span<const uint8_t>;

enum class Kind : uint32_t { client_hello = 2, server_hello = 3, client_finish = 4 };

// The fields of one handshake step; absent fields are empty views.
struct Hello {
  View ephemeral;  // not part of clientFinish
  View static_key;
  View payload;
};

// Parses a HandshakeMessage that must hold the `kind` step. A repeated field keeps its last value,
// as protobuf says. Errors: noise_message (malformed, or the step is missing).
Error parse_handshake(View message, Kind kind, Hello& out);
// Writes a HandshakeMessage with one step (empty fields are left out). Errors: out_of_memory.
Error write_handshake(Kind kind, const Hello& in, std::vector<uint8_t>& out);

struct Certificate {
  View details;    // the bytes the signature covers
  View signature;
};
struct CertChain {
  Certificate leaf, intermediate;
};
struct Details {
  uint64_t serial = 0;
  uint64_t issuer_serial = 0;
  View key;
  uint64_t not_before = 0;
  uint64_t not_after = 0;
};

// Errors: noise_cert (malformed).
Error parse_cert_chain(View bytes, CertChain& out);
Error parse_details(View bytes, Details& out);
// Errors: out_of_memory.
Error write_details(const Details& in, std::vector<uint8_t>& out);
Error write_cert_chain(const CertChain& in, std::vector<uint8_t>& out);

}  // namespace wacore::noise::proto
