// Glue (plain wasm exports) for the Noise transport (src/noise/noise.h): marshalling only. A connection lives in
// wasm memory from noiseCreate to noiseFree (which wipes it); the JS side (npm/lib/noise.mjs) owns
// it. Inputs come in through the module's I/O buffer (bindings/wacore_bindings.cpp, ioBuffer); each
// call's output bytes are left in one reused vector described by NoiseResult, which the JS side
// copies out before the next call. Calls return 0 or a wacore::Error value.
#include <emscripten.h>
#include <sodium.h>

#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include "binary/codec.h"
#include "binary/tape.h"
#include "common/error.h"
#include "generated/boundary.h"
#include "guard.h"
#include "noise/noise.h"

namespace {

using wacore::Error;
namespace ns = wacore::noise;

// What the last call produced, read by the JS side from memory: the u32 words of NoiseResultWord.
using wacore::bindings::wire::NoiseResultWord;
uint32_t g_result[wacore::bindings::wire::kNoiseResultWordLast + 1];
void set(NoiseResultWord w, uint32_t v) { g_result[static_cast<int>(w)] = v; }
std::vector<uint8_t> g_out;     // reused: steady use allocates nothing
std::vector<uint8_t> g_encoded; // binary-encoded node before encryption (encodeFrame)

template <typename T = uint8_t>
T* at(uintptr_t p) {
  return reinterpret_cast<T*>(p);
}
std::span<const uint8_t> bytes(uintptr_t p, size_t n) { return {at(p), n}; }
ns::Connection& conn(uintptr_t h) { return *at<ns::Connection>(h); }
uint64_t u64(uint32_t hi, uint32_t lo) { return static_cast<uint64_t>(hi) << 32 | lo; }

// Publishes g_out (and the other fields) in g_result; wipes the output when the call failed.
int publish(Error e, size_t count = 0, bool done = true) {
  if (e != Error::ok && count == 0) {
    if (!g_out.empty()) sodium_memzero(g_out.data(), g_out.size());
    g_out.clear();
  }
  set(NoiseResultWord::kOut, static_cast<uint32_t>(reinterpret_cast<uintptr_t>(g_out.data())));
  set(NoiseResultWord::kOutLength, static_cast<uint32_t>(g_out.size()));
  set(NoiseResultWord::kCount, static_cast<uint32_t>(count));
  set(NoiseResultWord::kDone, done ? 1 : 0);
  return static_cast<int>(e);
}
void reset_out() {
  if (!g_out.empty()) sodium_memzero(g_out.data(), g_out.size());
  g_out.clear();
}

// Runs an export's body through guard() (guard.h). Out of memory: the outputs are wiped and the
// call returns ERR_OUT_OF_MEMORY. The connection is as the core left it: unchanged in transport, the
// handshake failed in a handshake step.
template <typename F>
int run(F&& body) noexcept {
  constexpr int kFailed = -1;  // no body returns it: publish() gives an Error value, >= 0
  const int r = wacore::bindings::guard(kFailed, std::forward<F>(body));
  if (r != kFailed) return r;
  if (!g_encoded.empty()) sodium_memzero(g_encoded.data(), g_encoded.size());
  g_encoded.clear();
  return publish(Error::out_of_memory);
}

uintptr_t noise_result() { return reinterpret_cast<uintptr_t>(g_result); }

// role: a NoiseRole (0 client, otherwise responder). ephemeral: address of 32 bytes, or 0 for a fresh key. Returns a
// handle (> 0), 0 when out of memory, or -error.
int noise_create(int role, int dict, uintptr_t routing, size_t routing_len, uintptr_t ephemeral, size_t max_frame) {
  std::unique_ptr<ns::Connection> c(new (std::nothrow) ns::Connection());
  if (c == nullptr) return 0;
  const bool client = role == static_cast<int>(wacore::bindings::wire::NoiseRole::kClient);
  const Error e = c->init(client ? ns::Connection::Role::client : ns::Connection::Role::responder,
                          static_cast<uint8_t>(dict), bytes(routing, routing_len),
                          ephemeral != 0 ? at(ephemeral) : nullptr, max_frame);
  if (e != Error::ok) {
    c->wipe();
    return -static_cast<int>(e);
  }
  return static_cast<int>(reinterpret_cast<uintptr_t>(c.release()));
}

void noise_free(uintptr_t h) {
  if (h == 0) return;
  conn(h).wipe();
  delete at<ns::Connection>(h);
}

int noise_client_start(uintptr_t h) {
  reset_out();
  return publish(conn(h).client_start(g_out));
}

// root: 32 bytes; now = seconds since the epoch, as two 32-bit halves.
int noise_client_server_hello(uintptr_t h, uintptr_t chunk, size_t len, uintptr_t static_priv, uintptr_t payload,
                              size_t payload_len, uintptr_t root, uint32_t now_hi, uint32_t now_lo) {
  reset_out();
  bool done = false;
  const ns::ClientOptions opts{at(root), u64(now_hi, now_lo)};
  const Error e = conn(h).client_read_server_hello(bytes(chunk, len), at(static_priv), bytes(payload, payload_len),
                                                   opts, g_out, done);
  return publish(e, 0, done);
}

int noise_responder_hello(uintptr_t h, uintptr_t chunk, size_t len, uintptr_t static_priv, uintptr_t chain,
                          size_t chain_len) {
  reset_out();
  bool done = false;
  const Error e = conn(h).responder_read_client_hello(bytes(chunk, len), at(static_priv), bytes(chain, chain_len),
                                                     g_out, done);
  return publish(e, 0, done);
}

// Output: the client's static key (32 bytes) then its payload.
int noise_responder_finish(uintptr_t h, uintptr_t chunk, size_t len) {
  reset_out();
  uint8_t client_static[ns::kKeyBytes];
  std::vector<uint8_t> payload;
  bool done = false;
  const Error e = conn(h).responder_read_client_finish(bytes(chunk, len), client_static, payload, done);
  if (e == Error::ok && done) {
    try {
      g_out.assign(client_static, client_static + sizeof client_static);
      g_out.insert(g_out.end(), payload.begin(), payload.end());
    } catch (...) {
      // The step is not finished until its results are out: a failure here ends the handshake as
      // failed, as one inside the step does.
      conn(h).abandon_handshake();
      throw;
    }
  }
  if (!payload.empty()) sodium_memzero(payload.data(), payload.size());
  return publish(e, 0, done);
}

int noise_finish(uintptr_t h) { return static_cast<int>(conn(h).finish()); }

size_t noise_buffered(uintptr_t h) { return conn(h).buffered(); }

// Output: the certificate chain (tests and non-WhatsApp servers). Times as 32-bit halves.
int noise_make_cert_chain(uintptr_t root_priv, uintptr_t inter_priv, uintptr_t leaf_key, uint32_t inter_serial,
                          uint32_t leaf_serial, uint32_t nb_hi, uint32_t nb_lo, uint32_t na_hi, uint32_t na_lo) {
  reset_out();
  const ns::CertSpec spec{inter_serial, leaf_serial, u64(nb_hi, nb_lo), u64(na_hi, na_lo)};
  return publish(ns::make_cert_chain(spec, at(root_priv), at(inter_priv), at(leaf_key), g_out));
}

}  // namespace

// The per-frame calls are plain exports: embind's generic invoker (the only one without eval)
// costs more than encrypting a small frame.
extern "C" {
// Encrypts and frames len bytes.
EMSCRIPTEN_KEEPALIVE int wacore_noise_encrypt_frame(uintptr_t h, uintptr_t in, size_t len) {
  return run([&] {
    g_out.clear();
    return publish(conn(h).encrypt_frame(bytes(in, len), g_out));
  });
}

// Binary-encodes a node tape (as wacore_binary_encode takes it), then encrypts and frames it.
EMSCRIPTEN_KEEPALIVE int wacore_noise_encode_frame(uintptr_t h, uintptr_t words, size_t word_count, uintptr_t strings,
                                                   size_t string_count, uintptr_t area, size_t area_len, int dict) {
  return run([&] {
    g_out.clear();
    g_encoded.clear();
    Error e = wacore::binary::encode_tape({at<const int32_t>(words), word_count},
                                          {at<const int32_t>(strings), 2 * string_count}, bytes(area, area_len),
                                          static_cast<wacore::binary::Dict>(dict), g_encoded);
    if (e == Error::ok) e = conn(h).encrypt_frame(g_encoded, g_out);
    if (!g_encoded.empty()) sodium_memzero(g_encoded.data(), g_encoded.size());
    return publish(e);
  });
}

// Feeds a chunk; the output holds each decrypted frame as a 4-byte little-endian length and the
// bytes, and count says how many (also when an error stopped the call after some frames).
EMSCRIPTEN_KEEPALIVE int wacore_noise_decrypt_frames(uintptr_t h, uintptr_t in, size_t len) {
  return run([&] {
    reset_out();
    size_t count = 0;
    const Error e = conn(h).decrypt_frames(bytes(in, len), g_out, count);
    return publish(e, count);
  });
}
}

// Plain wasm exports, called by the JS side as Module._wacore_<name> (see wacore_bindings.cpp).
extern "C" {
EMSCRIPTEN_KEEPALIVE uintptr_t wacore_noiseResult() { return noise_result(); }
EMSCRIPTEN_KEEPALIVE int wacore_noiseCreate(int role, int dict, uintptr_t routing, size_t routing_len,
                                            uintptr_t ephemeral, size_t max_frame) {
  return wacore::bindings::guard(0, [&] { return noise_create(role, dict, routing, routing_len, ephemeral, max_frame); });
}
EMSCRIPTEN_KEEPALIVE void wacore_noiseFree(uintptr_t h) { noise_free(h); }
EMSCRIPTEN_KEEPALIVE int wacore_noiseClientStart(uintptr_t h) { return run([&] { return noise_client_start(h); }); }
EMSCRIPTEN_KEEPALIVE int wacore_noiseClientServerHello(uintptr_t h, uintptr_t chunk, size_t len, uintptr_t static_priv,
                                                       uintptr_t payload, size_t payload_len, uintptr_t root,
                                                       uint32_t now_hi, uint32_t now_lo) {
  return run([&] { return noise_client_server_hello(h, chunk, len, static_priv, payload, payload_len, root, now_hi, now_lo); });
}
EMSCRIPTEN_KEEPALIVE int wacore_noiseResponderHello(uintptr_t h, uintptr_t chunk, size_t len, uintptr_t static_priv,
                                                    uintptr_t chain, size_t chain_len) {
  return run([&] { return noise_responder_hello(h, chunk, len, static_priv, chain, chain_len); });
}
EMSCRIPTEN_KEEPALIVE int wacore_noiseResponderFinish(uintptr_t h, uintptr_t chunk, size_t len) {
  return run([&] { return noise_responder_finish(h, chunk, len); });
}
EMSCRIPTEN_KEEPALIVE int wacore_noiseFinish(uintptr_t h) { return run([&] { return noise_finish(h); }); }
EMSCRIPTEN_KEEPALIVE size_t wacore_noiseBuffered(uintptr_t h) { return noise_buffered(h); }
EMSCRIPTEN_KEEPALIVE int wacore_noiseMakeCertChain(uintptr_t root_priv, uintptr_t inter_priv, uintptr_t leaf_key,
                                                   uint32_t inter_serial, uint32_t leaf_serial, uint32_t nb_hi,
                                                   uint32_t nb_lo, uint32_t na_hi, uint32_t na_lo) {
  return run([&] { return noise_make_cert_chain(root_priv, inter_priv, leaf_key, inter_serial, leaf_serial, nb_hi, nb_lo, na_hi, na_lo); });
}
}
