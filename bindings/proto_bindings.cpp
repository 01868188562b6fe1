// Glue for the WAProto codec (src/proto/codec.h): one call per decode, encode or inflate, results
// described in the ProtoResultWord words.
// Marshalling only: every function takes addresses in the module's one I/O buffer (the JS side copies
// inputs in, calls, and copies outputs out, bindings/module.cpp), plus lengths, and returns what its
// declared return kind says; the export turns a failure into -Error, which the generated JS function
// raises as a WacoreError.
#include <emscripten.h>
#include <sodium.h>

#include <cstdint>
#include <cstring>
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

size_t proto_schema(uintptr_t out) {
  const auto bytes = wacore::proto::schema_bytes();
  if (out != 0) std::memcpy(at(out), bytes.data(), bytes.size());
  return bytes.size();
}

uintptr_t proto_result() { return reinterpret_cast<uintptr_t>(g_result); }

// Decodes len bytes at data (in the I/O buffer, or the last inflate's output) as message `type`.
Error proto_decode(uint32_t type, uintptr_t data, size_t len) {
  bool failed = false;
  const Error e = guard(Error::out_of_memory, [&] { return wacore::proto::decode(type, bytes(data, len), g_words); }, failed);
  if (e != Error::ok) {
    wipe_words();  // what it had decoded, zeroed (clear() would keep it in capacity)
    return e;
  }
  set(ProtoResultWord::kWords, addr(g_words.data()));
  set(ProtoResultWord::kWordCount, static_cast<uint32_t>(g_words.size()));
  return Error::ok;
}

// The tape (word_count words at words) and the area its strings and bytes refer to, as the JS side
// wrote them into the I/O buffer; zeroed once read, whatever the outcome.
Error proto_encode(uint32_t type, uintptr_t words, size_t word_count, uintptr_t area, size_t area_len) {
  wipe_out();
  bool failed = false;
  const Error e = guard(
      Error::out_of_memory,
      [&] { return wacore::proto::encode(type, {at<const int32_t>(words), word_count}, bytes(area, area_len), g_out); },
      failed);
  if (word_count != 0) sodium_memzero(at(words), word_count * sizeof(int32_t));
  if (area_len != 0) sodium_memzero(at(area), area_len);
  if (e != Error::ok) {
    wipe_out();
    return e;
  }
  publish_out();
  return Error::ok;
}

// Inflates a zlib stream (a history-sync blob) into the output, at most max bytes.
Error proto_inflate(uintptr_t data, size_t len, size_t max) {
  bool failed = false;
  const Error e = guard(
      Error::out_of_memory,
      [&] { return wacore::inflate_capped(bytes(data, len), max, g_out, Error::proto_malformed, Error::proto_too_large); },
      failed);
  if (e != Error::ok) {
    wipe_out();
    return e;
  }
  publish_out();
  return Error::ok;
}

void proto_wipe(uintptr_t data, size_t len) {
  wipe_words();
  wipe_out();
  if (len != 0) sodium_memzero(at(data), len);
}

}  // namespace wacore::bindings::plain

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/proto_bindings.inc"
