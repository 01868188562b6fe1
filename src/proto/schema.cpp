#include "proto/schema.h"

#include "proto/schema_generated.h"

namespace wacore::proto {

namespace {

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;

  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end) break;
      const uint8_t b = *p++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    ok = false;
    return 0;
  }
  int64_t zigzag() {
    const uint64_t v = varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  uint8_t byte() {
    if (p == end) {
      ok = false;
      return 0;
    }
    return *p++;
  }
};

bool valid_kind(uint8_t k) { return k >= kDouble && k <= kSint64 && k != 10; }

}  // namespace

bool parse_schema(std::span<const uint8_t> bytes, Schema& out) {
  out = Schema{};
  if (bytes.size() < 4 || bytes[0] != 'W' || bytes[1] != 'A' || bytes[2] != 'P' || bytes[3] != '1') return false;
  Reader r{bytes.data() + 4, bytes.data() + bytes.size()};
  const uint64_t names = r.varint();
  if (!r.ok || names > static_cast<uint64_t>(r.end - r.p)) return false;
  // Names are read in order as the structure uses them; the core keeps only the messages'.
  const char* name_at = reinterpret_cast<const char*>(r.p);
  const char* const names_end = name_at + names;
  r.p += names;
  bool names_ok = true;
  auto next_name = [&]() -> std::string_view {
    const char* e = name_at;
    while (e < names_end && *e != '\n') e++;
    if (name_at > names_end) {
      names_ok = false;
      return {};
    }
    const std::string_view n(name_at, static_cast<size_t>(e - name_at));
    name_at = e + 1;
    return n;
  };

  out.enum_count = static_cast<uint32_t>(r.varint());
  for (uint32_t e = 0; e < out.enum_count && r.ok; e++) {
    next_name();
    const uint64_t values = r.varint();
    for (uint64_t v = 0; v < values && r.ok; v++) {
      next_name();
      r.zigzag();
    }
  }
  const uint64_t message_count = r.varint();
  if (!r.ok || message_count > 0xFFFF) return false;
  out.messages.resize(message_count);
  out.message_names.resize(message_count);
  for (uint64_t m = 0; m < message_count && r.ok; m++) {
    Message& msg = out.messages[m];
    out.message_names[m] = next_name();
    msg.first_field = static_cast<uint32_t>(out.fields.size());
    const uint64_t count = r.varint();
    if (count > 0xFFFE) return false;
    msg.field_count = static_cast<uint32_t>(count);
    int64_t next = 1;
    for (uint64_t i = 0; i < count && r.ok; i++) {
      Field f;
      const int64_t number = next + r.zigzag();
      if (number < 1 || number > 536870911) return false;
      f.number = static_cast<uint32_t>(number);
      next = number + 1;
      next_name();
      f.kind = r.byte();
      f.flags = r.byte();
      if (f.flags & kMapField) {
        f.key_kind = r.byte();
        f.value_kind = r.byte();
        if (!valid_kind(f.key_kind) || !valid_kind(f.value_kind)) return false;
        if (f.value_kind == kMessage || f.value_kind == kEnum) f.type = static_cast<int32_t>(r.varint());
      } else {
        if (!valid_kind(f.kind)) return false;
        if (f.kind == kMessage || f.kind == kEnum) f.type = static_cast<int32_t>(r.varint());
      }
      const uint8_t ref_kind = (f.flags & kMapField) ? f.value_kind : f.kind;
      if (ref_kind == kMessage && (f.type < 0 || static_cast<uint64_t>(f.type) >= message_count)) return false;
      if (ref_kind == kEnum && (f.type < 0 || static_cast<uint32_t>(f.type) >= out.enum_count)) return false;
      if (f.number > msg.max_number) msg.max_number = f.number;
      out.fields.push_back(f);
    }
    const uint64_t oneofs = r.varint();
    for (uint64_t o = 0; o < oneofs && r.ok; o++) {
      next_name();
      const uint64_t members = r.varint();
      for (uint64_t k = 0; k < members && r.ok; k++) r.varint();
    }
    // A direct table from number to field; WAProto's highest field number is under a thousand.
    if (msg.max_number > 4096) return false;
    msg.first_slot = static_cast<uint32_t>(out.by_number.size());
    out.by_number.resize(out.by_number.size() + msg.max_number + 1, 0);
    for (uint32_t i = 0; i < msg.field_count; i++) {
      uint16_t& slot = out.by_number[msg.first_slot + out.fields[msg.first_field + i].number];
      if (slot != 0) return false;  // a number declared twice
      slot = static_cast<uint16_t>(i + 1);
    }
  }
  if (!r.ok || r.p != r.end || !names_ok || name_at != names_end + 1) return false;
  out.ok = true;
  return true;
}

const Schema& schema() {
  static const Schema s = [] {
    Schema parsed;
    parse_schema({generated::kSchema, generated::kSchemaSize}, parsed);
    return parsed;
  }();
  return s;
}

std::span<const uint8_t> schema_bytes() noexcept { return {generated::kSchema, generated::kSchemaSize}; }

std::string_view schema_version() noexcept { return generated::kVersion; }

}  // namespace wacore::proto
