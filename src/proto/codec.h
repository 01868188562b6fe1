// The table-driven protobuf codec for WAProto messages (schema.h): bytes to a flat tape of 32-bit
// words that the JS side turns into plain objects, and a tape the JS side wrote back to bytes.
//
// The tape, both directions, for one message:
//   message := entry* END
//   entry   := index value        a declared field (index into the message's fields, in
//                                 field-number order); a repeated field has one entry per element
//            | UNKNOWN offset length   a field the schema does not declare, or one whose wire type
//                                 is not the declared one: its bytes (tag included), kept as they are
//   value by kind:
//     int32, uint32, sint32, enum, bool, fixed32, sfixed32   1 word (sint32 already un-zigzagged;
//                                 bool 0 or 1; float its bits)
//     float                                                  1 word: the IEEE bits
//     int64, uint64, sint64, fixed64, sfixed64, double       2 words: low, high (two's complement;
//                                 sint64 un-zigzagged; double its bits)
//     string         decode: offset, length * 2 + (1 if any byte is not ASCII); encode: offset, length
//     bytes          offset, length
//     message        the nested message (its entries, then END)
//     map entry      the key's value, then the value's value (kinds from the field)
// Offsets are into the input (decode) or into the byte area the JS side wrote (encode).
//
// Decoding keeps what the wire says: a field present with its default value is an entry, packed
// and unpacked repeated scalars are both read, the last of several values of a singular field is
// what JS keeps (it assigns in order). Encoding writes entries in tape order (JS writes them in
// field-number order, as protobufjs does), packed fields as one record per run of entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"
#include "proto/schema.h"

namespace wacore::proto {

inline constexpr int32_t kEnd = -1;
inline constexpr int32_t kUnknown = -2;

// Limits.
inline constexpr int kMaxDepth = 100;                 // nested messages (and map values)
inline constexpr size_t kMaxTapeWords = size_t{1} << 25;  // 128 MiB of tape: ERR_PROTO_TOO_LARGE beyond
inline constexpr size_t kMaxValues = size_t{1} << 22;     // decoded values (fields, elements, unknowns): the
                                                          // objects JS makes; ERR_PROTO_TOO_LARGE beyond
inline constexpr size_t kMaxEncoded = size_t{1} << 30;    // 1 GiB of output

// Decodes `in` as message `type` into `words` (cleared first). On error `words` holds nothing
// meaningful.
Error decode(uint32_t type, std::span<const uint8_t> in, std::vector<int32_t>& words);

// Encodes the tape of message `type` whose string and byte entries refer to `area`. Appends to out.
// Every word is checked: a malformed tape is Error::proto_tape, never a read out of bounds; an
// unknown-field entry that is not exactly one well-formed field is Error::proto_malformed.
Error encode(uint32_t type, std::span<const int32_t> words, std::span<const uint8_t> area, std::vector<uint8_t>& out);

// Encodes again what decode() gave for `in` (its tape, whose offsets are into `in`): the bytes of
// a canonical input come back unchanged. For C++ callers and the fuzzers.
Error reencode(uint32_t type, std::span<const int32_t> decoded, std::span<const uint8_t> in, std::vector<uint8_t>& out);

}  // namespace wacore::proto
