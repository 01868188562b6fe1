// Glue (plain wasm exports) for the Noise transport (src/noise/noise.h): marshalling only. A connection lives in
// wasm memory from noiseCreate to noiseFree (which wipes it); the JS side (npm/lib/noise.mjs) owns
// it. Inputs come in through the module's I/O buffer, placed by the generated JS
// (bindings/boundary.json); each call's output bytes are left in one reused vector described by
// NoiseResult, read in place by the JS side, and zeroed by noiseWipe where they are plaintext.
// Calls return 0 or -Error, as every export does.
#include <emscripten.h>
#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include "binary/codec.h"
#include "binary/tape.h"
#include "binary_result.h"
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
// Where the frame last looked up (noiseDecodeFrame) starts in g_out: frames are read in
// order, so each lookup goes on from the one before.
uint32_t g_seek_index = 0;
size_t g_seek_at = 0;
size_t g_frame_count = 0;  // the frames in g_out (the result words are in memory JS can write)

template <typename T = uint8_t>
T* at(uintptr_t p) {
  return reinterpret_cast<T*>(p);
}
std::span<const uint8_t> bytes(uintptr_t p, size_t n) { return {at(p), n}; }
ns::Connection& conn(uintptr_t h) { return *at<ns::Connection>(h); }
uint64_t u64(uint32_t hi, uint32_t lo) { return static_cast<uint64_t>(hi) << 32 | lo; }

// Publishes g_out (and the other fields) in g_result; wipes the output when the call failed.
Error publish(Error e, size_t count = 0, bool done = true) {
  if (e != Error::ok && count == 0) {
    if (!g_out.empty()) sodium_memzero(g_out.data(), g_out.size());
    g_out.clear();
  }
  set(NoiseResultWord::kOut, static_cast<uint32_t>(reinterpret_cast<uintptr_t>(g_out.data())));
  set(NoiseResultWord::kOutLength, static_cast<uint32_t>(g_out.size()));
  set(NoiseResultWord::kCount, static_cast<uint32_t>(count));
  set(NoiseResultWord::kDone, done ? 1 : 0);
  g_seek_index = 0;
  g_seek_at = 0;
  g_frame_count = count;
  return e;
}
void reset_out() {
  if (!g_out.empty()) sodium_memzero(g_out.data(), g_out.size());
  g_out.clear();
}

// Runs an export's body through guard() (guard.h). Out of memory: the outputs are wiped and the
// call returns ERR_OUT_OF_MEMORY. The connection is as the core left it: unchanged in transport, the
// handshake failed in a handshake step.
template <typename F>
Error run(F&& body) noexcept {
  bool failed = false;
  const Error e = wacore::bindings::guard(Error::out_of_memory, std::forward<F>(body), failed);
  if (!failed) return e;
  if (!g_encoded.empty()) sodium_memzero(g_encoded.data(), g_encoded.size());
  g_encoded.clear();
  return publish(Error::out_of_memory);
}

Error client_start(uintptr_t h) {
  reset_out();
  return publish(conn(h).client_start(g_out));
}

Error client_server_hello(uintptr_t h, uintptr_t chunk, size_t len, uintptr_t static_priv, uintptr_t payload,
                          size_t payload_len, uintptr_t root, uint32_t now_hi, uint32_t now_lo) {
  reset_out();
  bool done = false;
  const ns::ClientOptions opts{at(root), u64(now_hi, now_lo)};
  const Error e = conn(h).client_read_server_hello(bytes(chunk, len), at(static_priv), bytes(payload, payload_len),
                                                   opts, g_out, done);
  return publish(e, 0, done);
}

Error responder_hello(uintptr_t h, uintptr_t chunk, size_t len, uintptr_t static_priv, uintptr_t chain,
                      size_t chain_len) {
  reset_out();
  bool done = false;
  const Error e = conn(h).responder_read_client_hello(bytes(chunk, len), at(static_priv), bytes(chain, chain_len),
                                                     g_out, done);
  return publish(e, 0, done);
}

Error responder_finish(uintptr_t h, uintptr_t chunk, size_t len) {
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

}  // namespace

// The plain exports' family functions (bindings/boundary.json, "plain"). The per-frame calls are
// plain exports: embind's generic invoker (the only one without eval) costs more than encrypting a
// small frame.
namespace wacore::bindings::plain {

uintptr_t noise_result() { return reinterpret_cast<uintptr_t>(g_result); }

// role: a NoiseRole (0 client, otherwise responder). ephemeral: 32 bytes, or none for a fresh key.
// The handle (> 0).
wire::Value noise_create(int32_t role, int32_t dict, uintptr_t routing, size_t routing_len, uintptr_t ephemeral,
                         size_t ephemeral_len, size_t max_frame) {
  if (ephemeral_len != 0 && ephemeral_len != ns::kKeyBytes) return Error::key_length;
  return guard(wire::Value(Error::out_of_memory), [&]() -> wire::Value {
    std::unique_ptr<ns::Connection> c(new ns::Connection());
    const bool client = role == static_cast<int>(wire::NoiseRole::kClient);
    const Error e = c->init(client ? ns::Connection::Role::client : ns::Connection::Role::responder,
                            static_cast<uint8_t>(dict), bytes(routing, routing_len),
                            ephemeral_len != 0 ? at(ephemeral) : nullptr, max_frame);
    if (e != Error::ok) {
      c->wipe();
      return e;
    }
    return wire::Value::of(reinterpret_cast<uintptr_t>(c.release()));
  });
}

void noise_free(uintptr_t conn_handle) {
  if (conn_handle == 0) return;
  conn(conn_handle).wipe();
  delete at<ns::Connection>(conn_handle);
}

Error noise_client_start(uintptr_t conn) {
  return run([&] { return client_start(conn); });
}

// root: 32 bytes; now = seconds since the epoch, as two 32-bit halves.
Error noise_client_server_hello(uintptr_t conn, uintptr_t chunk, size_t len, uintptr_t static_priv, size_t,
                                uintptr_t payload, size_t payload_len, uintptr_t root, size_t, uint32_t now_hi,
                                uint32_t now_lo) {
  return run([&] { return client_server_hello(conn, chunk, len, static_priv, payload, payload_len, root, now_hi, now_lo); });
}

Error noise_responder_hello(uintptr_t conn, uintptr_t chunk, size_t len, uintptr_t static_priv, size_t,
                            uintptr_t chain, size_t chain_len) {
  return run([&] { return responder_hello(conn, chunk, len, static_priv, chain, chain_len); });
}

// Output: the client's static key (32 bytes) then its payload.
Error noise_responder_finish(uintptr_t conn, uintptr_t chunk, size_t len) {
  return run([&] { return responder_finish(conn, chunk, len); });
}

Error noise_finish(uintptr_t conn_handle) {
  return run([&] { return conn(conn_handle).finish(); });
}

size_t noise_buffered(uintptr_t conn_handle) { return conn(conn_handle).buffered(); }

// Output: the certificate chain (tests and non-WhatsApp servers). Times as 32-bit halves.
Error noise_make_cert_chain(uintptr_t root_priv, size_t, uintptr_t inter_priv, size_t, uintptr_t leaf_key, size_t,
                            uint32_t inter_serial, uint32_t leaf_serial, uint32_t not_before_hi, uint32_t not_before_lo,
                            uint32_t not_after_hi, uint32_t not_after_lo) {
  return run([&] {
    reset_out();
    const ns::CertSpec spec{inter_serial, leaf_serial, u64(not_before_hi, not_before_lo), u64(not_after_hi, not_after_lo)};
    return publish(ns::make_cert_chain(spec, at(root_priv), at(inter_priv), at(leaf_key), g_out));
  });
}

// Encrypts and frames len bytes.
Error noise_encrypt_frame(uintptr_t conn_handle, uintptr_t data, size_t len) {
  return run([&] {
    g_out.clear();
    return publish(conn(conn_handle).encrypt_frame(bytes(data, len), g_out));
  });
}

// Binary-encodes a node tape (as binaryEncode takes it), then encrypts and frames it.
Error noise_encode_frame(uintptr_t conn_handle, uintptr_t words, size_t word_count, uintptr_t strings,
                         size_t strings_len, uintptr_t area, size_t area_len, int32_t dict) {
  if (strings_len % 2 != 0) return Error::binary_tape;
  return run([&] {
    g_out.clear();
    g_encoded.clear();
    Error e = wacore::binary::encode_tape({at<const int32_t>(words), word_count},
                                          {at<const int32_t>(strings), strings_len}, bytes(area, area_len),
                                          static_cast<wacore::binary::Dict>(dict), g_encoded);
    if (e == Error::ok) e = conn(conn_handle).encrypt_frame(g_encoded, g_out);
    if (!g_encoded.empty()) sodium_memzero(g_encoded.data(), g_encoded.size());
    return publish(e);
  });
}

// Feeds a chunk; the output holds each decrypted frame as a 4-byte little-endian length and the
// bytes, and count says how many (also when an error stopped the call after some frames).
Error noise_decrypt_frames(uintptr_t conn_handle, uintptr_t data, size_t len) {
  return run([&] {
    reset_out();
    size_t count = 0;
    const Error e = conn(conn_handle).decrypt_frames(bytes(data, len), g_out, count);
    return publish(e, count);
  });
}

namespace {
// Frame i of the last decryptFrames' output (empty past its count, or where the output does not
// hold what its lengths say: never, as decrypt_frames writes it).
std::span<const uint8_t> noise_frame_at(uint32_t index) {
  if (index >= g_frame_count) return {};
  if (index < g_seek_index) {
    g_seek_index = 0;
    g_seek_at = 0;
  }
  uint32_t n = 0;
  for (;;) {
    if (g_out.size() - g_seek_at < sizeof n) return {};
    std::memcpy(&n, g_out.data() + g_seek_at, sizeof n);  // little endian, as wasm is
    if (g_out.size() - g_seek_at - sizeof n < n) return {};
    if (g_seek_index == index) break;
    g_seek_at += sizeof n + n;
    g_seek_index++;
  }
  return {g_out.data() + g_seek_at + sizeof n, n};
}
}  // namespace

Error noise_decode_frame(uint32_t index, int32_t dict) {
  if (index >= g_frame_count) return Error::noise_state;
  return decode_frame(noise_frame_at(index), dict);
}

// The last call's output, and the len bytes at call (the call's region of the I/O buffer, when it
// held anything secret).
void noise_wipe(uintptr_t call, size_t len) {
  if (len != 0) sodium_memzero(at(call), len);
  reset_out();
  publish(Error::ok, 0, false);
}

}  // namespace wacore::bindings::plain

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/noise_bindings.inc"
