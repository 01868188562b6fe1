// Glue for the binary node codec (src/binary/codec.h): one call per decode or encode, results
// described in the BinaryResultWord words.
// Marshalling only: every function takes addresses in the module's one I/O buffer (the generated JS
// places the inputs, bindings/boundary.json), plus lengths, and returns what its declared return
// kind says (an Error, a Value, ...); the export turns a failure into -Error, which the generated JS
// function raises as a WacoreError. The results stay in this file's buffers, read in place, until
// binaryWipe.
#include <emscripten.h>
#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "binary/codec.h"
#include "binary/tape.h"
#include "common/error.h"
#include "generated/boundary.h"
#include "binary_result.h"
#include "guard.h"

// The plain exports' family functions (bindings/boundary.json, "plain"): the generated exports at the
// end of this file call them and turn what they return into the one convention.
namespace wacore::bindings::plain {

// --- binary node codec: one call per decode or encode; results described in the result words -----------

namespace {
// Where the last decode's tape, string table, pool and bytes are (read by the JS side from memory
// after the call), or the last encode's output: the u32 words of BinaryResultWord.
using wire::BinaryResultWord;
uint32_t g_binary[wire::kBinaryResultWordLast + 1];
void set(BinaryResultWord w, uint32_t v) { g_binary[static_cast<int>(w)] = v; }
wacore::binary::DecodedTape g_tape;   // reused: steady decoding allocates nothing
std::vector<uint8_t> g_encoded;       // reused by encode

uint32_t addr(const void* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p)); }

Error decode(std::span<const uint8_t> frame, int32_t dict) {
  const Error e = wacore::binary::decode_tape(frame, static_cast<wacore::binary::Dict>(dict), g_tape);
  if (e != Error::ok) return e;
  set(BinaryResultWord::kWords, addr(g_tape.words.data()));
  set(BinaryResultWord::kWordCount, static_cast<uint32_t>(g_tape.words.size()));
  set(BinaryResultWord::kStrings, addr(g_tape.strings.data()));
  set(BinaryResultWord::kStringCount, static_cast<uint32_t>(g_tape.strings.size() / 2));
  set(BinaryResultWord::kPool, addr(g_tape.pool.data()));
  set(BinaryResultWord::kPoolLength, static_cast<uint32_t>(g_tape.pool.size()));
  set(BinaryResultWord::kBlob, addr(g_tape.blob.data()));
  set(BinaryResultWord::kBlobLength, static_cast<uint32_t>(g_tape.blob.size()));
  set(BinaryResultWord::kAscii, g_tape.ascii ? 1 : 0);
  return Error::ok;
}

Error encode(uintptr_t words, size_t word_count, uintptr_t strings, size_t strings_len, uintptr_t area,
             size_t area_len, int32_t dict) {
  g_encoded.clear();
  const Error e = wacore::binary::encode_tape({at<const int32_t>(words), word_count},
                                              {at<const int32_t>(strings), strings_len}, bytes(area, area_len),
                                              static_cast<wacore::binary::Dict>(dict), g_encoded);
  if (e != Error::ok) return e;
  set(BinaryResultWord::kOut, addr(g_encoded.data()));
  set(BinaryResultWord::kOutLength, static_cast<uint32_t>(g_encoded.size()));
  return Error::ok;
}
}  // namespace

uintptr_t binary_result() { return reinterpret_cast<uintptr_t>(g_binary); }

// What the last codec call left, zeroed: the decoded tape with its strings, bytes and inflated
// frame, or the encoded frame; and the len bytes at call (the call's region of the I/O buffer, when
// it held anything secret). The generated JS calls it once it has read them.
void binary_wipe(uintptr_t call, size_t len) {
  if (len != 0) sodium_memzero(at(call), len);
  g_tape.wipe();
  if (!g_encoded.empty()) sodium_memzero(g_encoded.data(), g_encoded.size());
  g_encoded.clear();
}

// The token strings of a dictionary (2 or 3) by id, LF-separated: written to out when it is not
// null; their length. Nothing is allocated (the JS side asks once per dictionary).
namespace {
size_t tokens(int32_t dict, uint8_t* out) {
  size_t n = 0;
  for (int id = 0; id < wacore::binary::kTokenCount; id++) {
    if (id > 0) {
      if (out != nullptr) out[n] = '\n';
      n++;
    }
    const std::string_view s = wacore::binary::token_string(static_cast<wacore::binary::Dict>(dict), id);
    if (out != nullptr) std::memcpy(out + n, s.data(), s.size());
    n += s.size();
  }
  return n;
}
bool known(int32_t dict) { return dict == 2 || dict == 3; }
}  // namespace

size_t binary_tokens_size(int32_t dict) { return known(dict) ? tokens(dict, nullptr) : 0; }

wire::Value binary_tokens(int32_t dict, uintptr_t out, size_t out_len) {
  if (!known(dict)) return Error::dictionary;
  if (out_len < tokens(dict, nullptr)) return Error::output_length;
  return wire::Value::of(tokens(dict, at(out)));
}

// The codec's two entry points run thousands of times a minute on small stanzas. Out of memory
// leaves nothing of a half-made result: the tape is cleared, the encoded bytes wiped.
Error binary_decode(uintptr_t data, size_t len, int32_t dict) { return decode_frame(bytes(data, len), dict); }

Error decode_frame(std::span<const uint8_t> frame, int32_t dict) {
  bool failed = false;
  const Error e = guard(Error::out_of_memory, [&] { return decode(frame, dict); }, failed);
  if (failed) g_tape.wipe();  // what it had decoded of the frame, zeroed (clear() would keep it in capacity)
  return e;
}

// The tape (word_count words at words), its string table (offset and length pairs, strings_len
// words at strings) and the area the table and byte contents refer to, as the generated JS placed
// them (and zeroes them after the call).
Error binary_encode(uintptr_t words, size_t word_count, uintptr_t strings, size_t strings_len, uintptr_t area,
                    size_t area_len, int32_t dict) {
  if (strings_len % 2 != 0) return Error::binary_tape;
  bool failed = false;
  const Error e = guard(
      Error::out_of_memory, [&] { return encode(words, word_count, strings, strings_len, area, area_len, dict); },
      failed);
  if (failed) {
    if (!g_encoded.empty()) sodium_memzero(g_encoded.data(), g_encoded.size());
    g_encoded.clear();
  }
  return e;
}

}  // namespace wacore::bindings::plain

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/binary_bindings.inc"
