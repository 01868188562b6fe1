// libFuzzer target for the binary node codec (src/binary/codec.h, tape.h), run by scripts/fuzz.sh.
//
// For each dictionary, an input is one frame. Properties (a violation traps):
//  1. decode and decode_tape agree: both succeed or both fail, with the same error code.
//  2. When they succeed, the tree re-encodes (encode never fails on a decoded tree), the encoding
//     decodes again, and the two trees are equal once text content is read as bytes (a raw string
//     travels as BINARY_* and decodes as bytes; a token or packed string stays text; see as_bytes for
//     the one dictionary-2 exception).
//  3. Encoding is a fixed point after one round: encode(decode(encode(t))) == encode(t), byte for byte.
//  4. The tape re-encodes through encode_tape (pool and blob in one area, bytes offsets shifted past
//     the pool, as the JS side lays it out) to the very bytes encode wrote for the tree.
// ASan and UBSan watch every call, so out-of-bounds reads and undefined behaviour crash too.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "binary/codec.h"
#include "binary/tape.h"

namespace {

using wacore::Error;
using wacore::binary::DecodedTape;
using wacore::binary::Dict;
using wacore::binary::Node;

[[noreturn]] void violated() { __builtin_trap(); }
void require(bool ok) {
  if (!ok) violated();
}

// Text content read as bytes content with the same octets, through the whole tree.
//
// One known exception, for dictionary 2 only: the encoder writes "" as byte 00 (Baileys 6 does, byte
// for byte), and 00 in content position is LIST_EMPTY, so empty text content (which a decoder gets
// from an empty packed string, FF 00 or FB 00, or a JS caller from content '') reads back as an
// empty child list. Baileys 6 reads its own encoding the same way. Both sides map it to an empty
// child list here; without this line the fuzzer stops on it within seconds (input 00 f8 02 13 ff 00).
void as_bytes(Node& n, Dict dict) {
  if (dict == Dict::v2 && n.content == Node::Content::text && n.text.empty()) {
    n.content = Node::Content::children;
  } else if (n.content == Node::Content::text) {
    n.content = Node::Content::bytes;
    n.bytes.assign(n.text.begin(), n.text.end());
    n.text.clear();
  }
  for (Node& c : n.children) as_bytes(c, dict);
}

// Adds delta to the offset of every bytes entry of a tape (blob offsets -> offsets in pool ‖ blob).
// The tape came from a successful decode_tape, so it is well formed; the walk checks bounds anyway
// and reports a malformed tape as a violation.
bool shift_bytes(std::vector<int32_t>& w, int32_t delta) {
  size_t i = 0;
  auto node = [&](auto&& self, size_t depth) -> bool {
    if (depth > wacore::binary::kMaxDepth || i + 2 > w.size() || w[i + 1] < 0) return false;
    i += 2 + 2 * static_cast<size_t>(w[i + 1]);
    if (i >= w.size()) return false;
    const int32_t kind = w[i++];
    switch (kind) {
      case wacore::binary::kContentNone: return true;
      case wacore::binary::kContentText: return ++i <= w.size();
      case wacore::binary::kContentBytes:
        if (i + 2 > w.size()) return false;
        w[i] += delta;
        i += 2;
        return true;
      case wacore::binary::kContentChildren: {
        if (i >= w.size() || w[i] < 0) return false;
        const int32_t n = w[i++];
        for (int32_t c = 0; c < n; c++) {
          if (!self(self, depth + 1)) return false;
        }
        return true;
      }
      default: return false;
    }
  };
  return node(node, 1) && i == w.size();
}

void check(std::span<const uint8_t> frame, Dict dict) {
  Node first;
  const Error e_tree = decode(frame, dict, first);
  static DecodedTape tape;  // reused like the JS boundary does: steady state, stale buffers
  const Error e_tape = decode_tape(frame, dict, tape);
  require(e_tree == e_tape);
  if (e_tree != Error::ok) return;

  std::vector<uint8_t> enc1;
  require(encode(first, dict, enc1) == Error::ok);
  Node second;
  require(decode(enc1, dict, second) == Error::ok);
  std::vector<uint8_t> enc2;
  require(encode(second, dict, enc2) == Error::ok);
  require(enc2 == enc1);
  as_bytes(first, dict);
  as_bytes(second, dict);
  require(first == second);

  std::vector<uint8_t> area = tape.pool;
  area.insert(area.end(), tape.blob.begin(), tape.blob.end());
  std::vector<int32_t> words = tape.words;
  require(shift_bytes(words, static_cast<int32_t>(tape.pool.size())));
  std::vector<uint8_t> enc3;
  require(encode_tape(words, tape.strings, area, dict, enc3) == Error::ok);
  require(enc3 == enc1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> frame(data, size);
  check(frame, Dict::v2);
  check(frame, Dict::v3);
  return 0;
}
