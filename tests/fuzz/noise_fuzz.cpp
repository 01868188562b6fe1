// libFuzzer target for the Noise frame decoder and handshake parsers (src/noise/), run by
// scripts/fuzz.sh noise.
//
// One client/responder pair is set up once (fixed keys); every input works on copies of it. The
// first byte picks what the rest of the input is:
//   0: raw received bytes, cut into chunks by the second byte, fed to the responder's transport.
//      Property: no crash, and nothing is delivered (a forgery of a 16-byte tag would be needed).
//   1: a list of plaintexts (1-byte lengths) the client encrypts; the stream is cut into chunks of
//      a fuzzer-chosen size and one fuzzer-chosen byte may be flipped. Properties: without a flip,
//      every plaintext comes back in order and the counters match; with a flip, the frames before the
//      flipped one come back intact and nothing after it, and the read counter equals the frames
//      delivered.
//   2: bytes given to a fresh responder as the intro and clientHello; 3: bytes given to the client as
//      a serverHello. Property: no crash (errors are fine).
// ASan and UBSan watch every call, including protozero's exception paths in proto.cpp.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "crypto/curve25519.h"
#include "noise/noise.h"

namespace {

using wacore::Error;
using wacore::noise::Connection;
using Bytes = std::vector<uint8_t>;

[[noreturn]] void violated() { __builtin_trap(); }
void require(bool ok) {
  if (!ok) violated();
}

struct Setup {
  Connection client, server, fresh_server, hello_client;
  uint8_t server_priv[32], client_priv[32];
  Bytes chain;

  Setup() {
    uint8_t root[32], inter[32], server_pub[32];
    for (int i = 0; i < 32; i++) {
      root[i] = static_cast<uint8_t>(i + 1);
      inter[i] = static_cast<uint8_t>(i + 50);
      server_priv[i] = static_cast<uint8_t>(i + 100);
      client_priv[i] = static_cast<uint8_t>(i + 150);
    }
    require(wacore::curve::public_from_private(server_priv, server_pub) == Error::ok);
    require(wacore::noise::make_cert_chain({1, 2, 0, ~uint64_t{0}}, root, inter, server_pub, chain) == Error::ok);
    uint8_t root_pub[32];
    require(wacore::curve::public_from_private(root, root_pub) == Error::ok);
    require(client.init(Connection::Role::client, 3, {}, nullptr) == Error::ok);
    require(server.init(Connection::Role::responder, 3, {}, nullptr) == Error::ok);
    fresh_server = server;
    Bytes hello, server_hello, finish, payload;
    bool done = false;
    require(client.client_start(hello) == Error::ok);
    hello_client = client;
    require(server.responder_read_client_hello(hello, server_priv, chain, server_hello, done) == Error::ok && done);
    const wacore::noise::ClientOptions opts{root_pub, 1000};
    require(client.client_read_server_hello(server_hello, client_priv, {}, opts, finish, done) == Error::ok && done);
    uint8_t client_static[32];
    require(server.responder_read_client_finish(finish, client_static, payload, done) == Error::ok && done);
    require(client.finish() == Error::ok && server.finish() == Error::ok);
  }
};

// Feeds stream to receiver in chunks of `step` bytes (>= 1); returns the delivered payloads (length
// prefixed, as decrypt_frames writes them) and the first error.
Error feed(Connection& receiver, std::span<const uint8_t> stream, size_t step, Bytes& out, size_t& delivered) {
  delivered = 0;
  Error first = Error::ok;
  for (size_t at = 0; at < stream.size(); at += step) {
    const size_t n = stream.size() - at < step ? stream.size() - at : step;
    size_t count = 0;
    const Error e = receiver.decrypt_frames(stream.subspan(at, n), out, count);
    delivered += count;
    if (e != Error::ok && first == Error::ok) first = e;
    if (e == Error::noise_frame_too_large) break;
  }
  // Whatever stayed buffered after an error gets one more chance.
  size_t count = 0;
  if (receiver.decrypt_frames({}, out, count) == Error::ok) delivered += count;
  return first;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Setup setup;
  if (size < 2) return 0;
  const uint8_t mode = data[0] % 4;
  const std::span<const uint8_t> rest(data + 1, size - 1);

  if (mode == 0) {
    Connection r = setup.server;
    Bytes out;
    size_t delivered = 0;
    feed(r, rest.subspan(1), rest[0] % 64 + 1, out, delivered);
    require(delivered == 0 && r.read_counter() == 0);
  } else if (mode == 1) {
    if (rest.size() < 3) return 0;
    const size_t step = rest[0] % 64 + 1;
    const size_t flip_at = static_cast<size_t>(rest[1]) << 8 | rest[2];
    const bool flip = (rest[1] & 0x80) == 0;
    Connection w = setup.client;
    Connection r = setup.server;
    Bytes stream;
    std::vector<Bytes> sent;
    std::vector<size_t> ends;  // end offset of each frame in the stream
    for (size_t i = 3; i < rest.size();) {
      const size_t n = rest[i] < rest.size() - i - 1 ? rest[i] : rest.size() - i - 1;
      sent.emplace_back(rest.begin() + static_cast<std::ptrdiff_t>(i + 1),
                        rest.begin() + static_cast<std::ptrdiff_t>(i + 1 + n));
      require(w.encrypt_frame(sent.back(), stream) == Error::ok);
      ends.push_back(stream.size());
      i += 1 + n;
    }
    size_t intact = sent.size();  // frames wholly before the flipped byte
    if (flip && !stream.empty()) {
      const size_t pos = flip_at % stream.size();
      stream[pos] ^= 1;
      intact = 0;
      while (intact < ends.size() && ends[intact] <= pos) intact++;
    }
    Bytes out;
    size_t delivered = 0;
    const Error e = feed(r, stream, step, out, delivered);
    require(r.read_counter() == delivered);
    if (!flip || stream.empty()) require(e == Error::ok && delivered == sent.size());
    // A flipped byte cannot be forged past: exactly the frames before it are delivered (a flipped
    // length may also leave the decoder waiting for bytes that never come, without an error).
    if (flip && !stream.empty()) require(delivered == intact);
    // The first `intact` payloads come back unchanged, in order.
    size_t off = 0;
    for (size_t k = 0; k < intact && k < delivered; k++) {
      require(off + 4 <= out.size());
      const size_t n = out[off] | out[off + 1] << 8 | out[off + 2] << 16 | size_t{out[off + 3]} << 24;
      require(n == sent[k].size() && off + 4 + n <= out.size());
      require(n == 0 || std::memcmp(out.data() + off + 4, sent[k].data(), n) == 0);
      off += 4 + n;
    }
  } else if (mode == 2) {
    Connection r = setup.fresh_server;
    Bytes reply;
    bool done = false;
    (void)r.responder_read_client_hello(rest, setup.server_priv, setup.chain, reply, done);
  } else {
    Connection c = setup.hello_client;
    Bytes reply;
    bool done = false;
    const wacore::noise::ClientOptions opts{wacore::noise::kWhatsAppRootKey, 1000};
    (void)c.client_read_server_hello(rest, setup.client_priv, {}, opts, reply, done);
  }
  return 0;
}
