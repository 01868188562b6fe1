// WhatsApp's binary node format ("WABinary"): encoder and strict decoder, both token dictionaries.
//
// A node is a tag, string attributes in order, and optional content: text, bytes, or child nodes.
// On the wire every string is a token (one byte, or a dictionary byte and an index), a packed
// string (nibbles or hex digits), a JID (several forms), or raw bytes with a length. A frame is one
// flag byte and one node; flag bit 0x02 means the node is zlib-compressed.
//
// Two forms of the same codec:
//  - decode()/encode() on a Node tree, for C++ callers and the native tests;
//  - decode_tape()/encode_tape() on a flat array of 32-bit words, for the JS boundary: one call
//    decodes a whole frame into a tape the JS side turns into objects without further calls, and
//    one call encodes a tape the JS side wrote (see tape.h for its layout).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"

namespace wacore::binary {

// The token dictionary: 2 is what npm Baileys 6.x speaks, 3 is current (the connection header's 4th
// byte says which one a connection uses).
enum class Dict : uint8_t { v2 = 2, v3 = 3 };

// Limits.
inline constexpr size_t kMaxDepth = 256;                   // node nesting; deeper input is rejected
inline constexpr size_t kMaxInflatedBytes = 16u << 20;     // a compressed frame may inflate to this
inline constexpr size_t kPackedMax = 127;                  // longest string that may be packed
inline constexpr size_t kMaxListSize = 0xFFFF;             // LIST_16's limit, for children and attrs
inline constexpr uint8_t kFlagCompressed = 0x02;

// Tag bytes (docs/protocol.md §1.1).
namespace tag {
inline constexpr uint8_t kListEmpty = 0;
inline constexpr uint8_t kDictionary0 = 236;  // ..239
inline constexpr uint8_t kInteropJid = 245;
inline constexpr uint8_t kFbJid = 246;
inline constexpr uint8_t kAdJid = 247;
inline constexpr uint8_t kList8 = 248;
inline constexpr uint8_t kList16 = 249;
inline constexpr uint8_t kJidPair = 250;
inline constexpr uint8_t kHex8 = 251;
inline constexpr uint8_t kBinary8 = 252;
inline constexpr uint8_t kBinary20 = 253;
inline constexpr uint8_t kBinary32 = 254;
inline constexpr uint8_t kNibble8 = 255;
}  // namespace tag

// AD_JID domain types and their servers.
inline constexpr uint8_t kDomainWhatsapp = 0;    // s.whatsapp.net
inline constexpr uint8_t kDomainLid = 1;         // lid
inline constexpr uint8_t kDomainHosted = 128;    // hosted
inline constexpr uint8_t kDomainHostedLid = 129; // hosted.lid

struct Node {
  enum class Content : uint8_t { none, text, bytes, children };

  std::string tag;
  std::vector<std::pair<std::string, std::string>> attrs;  // wire order
  Content content = Content::none;
  std::string text;             // Content::text
  std::vector<uint8_t> bytes;   // Content::bytes
  std::vector<Node> children;   // Content::children

  bool operator==(const Node&) const = default;
};

// Token id of s in the dictionary, or -1. Ids: 0..235 single-byte, 236 + 256*d + i double-byte.
int token_id(Dict dict, std::string_view s) noexcept;
// The string of a token id (0..1259); "" for ids out of range.
std::string_view token_string(Dict dict, int id) noexcept;
inline constexpr int kTokenCount = 236 + 4 * 256;

// Decodes one frame (flag byte, then a node, with nothing left over).
Error decode(std::span<const uint8_t> frame, Dict dict, Node& out);
// Encodes a frame: flag byte 0, then the node. Appends to out.
Error encode(const Node& node, Dict dict, std::vector<uint8_t>& out);

}  // namespace wacore::binary
