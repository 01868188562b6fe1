// The flat form of a node tree that crosses the JS boundary, in both directions.
//
// Words are int32:
//   node    := tagRef attrCount (keyRef valueRef){attrCount} content
//   content := 0                      none
//            | 1 ref                  text
//            | 2 offset length        bytes: a range of the byte area (see below)
//            | 3 count node{count}    children
//   ref     := id >= 0                token id (codec.h: token_id)
//            | -1 - k                 string k of the string table
// The string table holds, for each string k, two words: offset and length of its UTF-8 bytes in the
// string area.
//
// Decoding fills a DecodedTape whose buffers live on between calls (steady use allocates nothing).
// All non-token strings are copied into one pool: when it is all ASCII the JS side decodes it with a
// single TextDecoder call and cuts the strings out with substring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "binary/codec.h"
#include "common/error.h"

namespace wacore::binary {

inline constexpr int32_t kContentNone = 0;
inline constexpr int32_t kContentText = 1;
inline constexpr int32_t kContentBytes = 2;
inline constexpr int32_t kContentChildren = 3;

struct DecodedTape {
  std::vector<int32_t> words;
  std::vector<int32_t> strings;  // offset, length into pool, per string
  std::vector<uint8_t> pool;     // string bytes
  std::vector<uint8_t> blob;     // bytes content (offsets in the tape's bytes entries)
  std::vector<uint8_t> inflated; // scratch for compressed frames
  bool ascii = true;             // every pooled string is ASCII

  void clear() noexcept {
    words.clear();
    strings.clear();
    pool.clear();
    blob.clear();
    ascii = true;
  }

  // Zeroes what the last decode left in every buffer (a stanza's strings and bytes, its inflated
  // frame), then clears them; the capacity stays, for the next decode.
  void wipe() noexcept {
    auto zero = [](auto& v) {
      if (!v.empty()) explicit_bzero(v.data(), v.size() * sizeof v[0]);
      v.clear();
    };
    zero(words);
    zero(strings);
    zero(pool);
    zero(blob);
    zero(inflated);
    ascii = true;
  }
};

// Decodes one frame into `out` (cleared first). On error `out` holds nothing meaningful.
Error decode_tape(std::span<const uint8_t> frame, Dict dict, DecodedTape& out);

// Encodes the tape (words) whose string table (pairs of offset, length) and byte contents refer to
// `area`. Appends the frame (flag byte 0, then the node) to out. Every word is checked: a malformed
// tape gives Error::binary_tape, never a read out of bounds.
Error encode_tape(std::span<const int32_t> words, std::span<const int32_t> strings,
                  std::span<const uint8_t> area, Dict dict, std::vector<uint8_t>& out);

}  // namespace wacore::binary
