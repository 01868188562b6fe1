// Glue for the WAProto codec (src/proto/codec.h): one call per decode, encode or inflate, results
// described in the ProtoResultWord words.
// Marshalling only: every function takes addresses in the module's one I/O buffer (the generated JS
// places the inputs, bindings/boundary.json), plus lengths, and returns what its declared return kind
// says; the export turns a failure into -Error, which the generated JS function raises as a
// WacoreError. The results stay in this file's buffers, read in place, until protoWipe.
#include <emscripten.h>
#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "common/error.h"
#include "common/inflate.h"
#include "generated/boundary.h"
#include "guard.h"
#include "proto/codec.h"
#include "proto/schema.h"

namespace wacore::bindings::plain {

namespace {
using wire::ProtoResultWord;
uint32_t g_result[wire::kProtoResultWordLast + 1];
void set(ProtoResultWord w, uint32_t v) { g_result[static_cast<int>(w)] = v; }
std::vector<int32_t> g_words;  // the last decode's tape (reused: steady decoding allocates nothing)
std::vector<uint8_t> g_out;    // the last encode's or inflate's output (reused)

uint32_t addr(const void* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p)); }

void wipe_words() {
  if (!g_words.empty()) sodium_memzero(g_words.data(), g_words.size() * sizeof g_words[0]);
  g_words.clear();
}
void wipe_out() {
  if (!g_out.empty()) sodium_memzero(g_out.data(), g_out.size());
  g_out.clear();
}
void publish_out() {
  set(ProtoResultWord::kOut, addr(g_out.data()));
  set(ProtoResultWord::kOutLength, static_cast<uint32_t>(g_out.size()));
}
}  // namespace

size_t proto_schema_size() { return wacore::proto::schema_bytes().size(); }

wire::Value proto_schema(uintptr_t out, size_t out_len) {
  const auto schema = wacore::proto::schema_bytes();
  if (out_len < schema.size()) return Error::output_length;
  std::memcpy(at(out), schema.data(), schema.size());
  return wire::Value::of(schema.size());
}

uintptr_t proto_result() { return reinterpret_cast<uintptr_t>(g_result); }

namespace {
// Decodes a message of `type` where it lies (the tape's offsets count from its start).
Error decode(uint32_t type, std::span<const uint8_t> message) {
  bool failed = false;
  const Error e = guard(Error::out_of_memory, [&] { return wacore::proto::decode(type, message, g_words); }, failed);
  if (e != Error::ok) {
    wipe_words();  // what it had decoded, zeroed (clear() would keep it in capacity)
    return e;
  }
  set(ProtoResultWord::kWords, addr(g_words.data()));
  set(ProtoResultWord::kWordCount, static_cast<uint32_t>(g_words.size()));
  set(ProtoResultWord::kInput, addr(message.data()));
  set(ProtoResultWord::kInputLength, static_cast<uint32_t>(message.size()));
  return Error::ok;
}

// Inflates a zlib stream (a history-sync blob) into the output, at most max bytes.
Error inflate(std::span<const uint8_t> data, size_t max) {
  bool failed = false;
  const Error e = guard(
      Error::out_of_memory,
      [&] { return wacore::inflate_capped(data, max, g_out, Error::proto_malformed, Error::proto_too_large); }, failed);
  if (e != Error::ok) {
    wipe_out();
    return e;
  }
  publish_out();
  return Error::ok;
}
}  // namespace

Error proto_decode(uint32_t type, uintptr_t data, size_t len) { return decode(type, bytes(data, len)); }

// The tape (word_count words at words) and the area its strings and bytes refer to, as the
// generated JS placed them (and zeroes them after the call).
Error proto_encode(uint32_t type, uintptr_t words, size_t word_count, uintptr_t area, size_t area_len) {
  wipe_out();
  bool failed = false;
  const Error e = guard(
      Error::out_of_memory,
      [&] { return wacore::proto::encode(type, {at<const int32_t>(words), word_count}, bytes(area, area_len), g_out); },
      failed);
  if (e != Error::ok) {
    wipe_out();
    return e;
  }
  publish_out();
  return Error::ok;
}

Error proto_inflate(uintptr_t data, size_t len, size_t max) { return inflate(bytes(data, len), max); }

// A history-sync blob in one call: inflated into the output, then decoded there.
Error proto_inflate_decode(uint32_t type, uintptr_t data, size_t len, size_t max) {
  if (Error e = inflate(bytes(data, len), max); e != Error::ok) return e;
  return decode(type, g_out);
}

// What the last call left (tape, output), and the len bytes at call (the call's region of the I/O
// buffer, when it held anything secret).
void proto_wipe(uintptr_t call, size_t len) {
  if (len != 0) sodium_memzero(at(call), len);
  wipe_words();
  wipe_out();
}

}  // namespace wacore::bindings::plain

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/proto_bindings.inc"
