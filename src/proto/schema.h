// WhatsApp's message schema (WAProto) as the protobuf codec reads it: messages by index, each with
// its fields in field-number order, read once from the compact form scripts/gen-proto.mjs writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace wacore::proto {

// Field kinds: descriptor.proto's TYPE_ numbers (a map field has kind 0 and its own key/value kinds).
enum Kind : uint8_t {
  kMap = 0,
  kDouble = 1,
  kFloat = 2,
  kInt64 = 3,
  kUint64 = 4,
  kInt32 = 5,
  kFixed64 = 6,
  kFixed32 = 7,
  kBool = 8,
  kString = 9,
  kMessage = 11,
  kBytes = 12,
  kUint32 = 13,
  kEnum = 14,
  kSfixed32 = 15,
  kSfixed64 = 16,
  kSint32 = 17,
  kSint64 = 18,
};

// Field flags.
inline constexpr uint8_t kRepeated = 1;
inline constexpr uint8_t kPacked = 2;    // repeated scalars written as one length-delimited record
inline constexpr uint8_t kPresence = 4;  // explicit presence (proto3 optional, oneof member, message)
inline constexpr uint8_t kMapField = 8;
inline constexpr uint8_t kOptional = 16;  // declared `optional` (the JS facade's toObject defaults)

struct Field {
  uint32_t number = 0;
  uint8_t kind = 0;
  uint8_t flags = 0;
  uint8_t key_kind = 0;    // maps
  uint8_t value_kind = 0;  // maps
  int32_t type = -1;       // message or enum index (for maps: of the value)
};

struct Message {
  uint32_t first_field = 0;  // index into Schema::fields
  uint32_t field_count = 0;
  uint32_t max_number = 0;
  uint32_t first_slot = 0;   // index into Schema::by_number: max_number + 1 slots
};

struct Schema {
  std::vector<Field> fields;
  std::vector<Message> messages;
  std::vector<uint16_t> by_number;  // per message, field number -> field index + 1 (0: not declared)
  std::vector<std::string_view> message_names;  // "Message.ImageMessage" (into the schema's bytes)
  uint32_t enum_count = 0;
  bool ok = false;

  // The field index (into this message's fields) with this number, or -1.
  int find(uint32_t message, uint64_t number) const noexcept {
    const Message& m = messages[message];
    if (number > m.max_number) return -1;
    return static_cast<int>(by_number[m.first_slot + number]) - 1;
  }
  const Field& field(uint32_t message, int index) const noexcept { return fields[messages[message].first_field + index]; }
  // The index of the message with this name ("Message", "Message.ImageMessage"), or -1.
  int find_message(std::string_view name) const noexcept {
    for (size_t i = 0; i < message_names.size(); i++)
      if (message_names[i] == name) return static_cast<int>(i);
    return -1;
  }
};

// The schema compiled into the core (built once, on first use). ok is false only if the generated
// bytes are malformed, which the native tests rule out.
const Schema& schema();

// The compact form itself (scripts/gen-proto.mjs), for the JS side, which reads the names too.
std::span<const uint8_t> schema_bytes() noexcept;

// The .proto's WhatsApp version line.
std::string_view schema_version() noexcept;

// Reads a compact schema (exposed for tests).
bool parse_schema(std::span<const uint8_t> bytes, Schema& out);

}  // namespace wacore::proto
