#include "proto/codec.h"

#include <cstring>

namespace wacore::proto {

namespace {

enum WireType : uint32_t { kVarint = 0, kI64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kI32 = 5 };

constexpr uint32_t wire_type_of(uint8_t kind) {
  switch (kind) {
    case kDouble:
    case kFixed64:
    case kSfixed64:
      return kI64;
    case kFloat:
    case kFixed32:
    case kSfixed32:
      return kI32;
    case kString:
    case kBytes:
    case kMessage:
    case kMap:
      return kLen;
    default:
      return kVarint;
  }
}

// Words a value of this kind takes on the tape (a message's entries aside).
constexpr bool two_words(uint8_t kind) {
  return kind == kInt64 || kind == kUint64 || kind == kSint64 || kind == kFixed64 || kind == kSfixed64 ||
         kind == kDouble || kind == kString || kind == kBytes;
}

// ---------------------------------------------------------------------------------------------------
// Decoding

constexpr uint64_t kMaxFieldNumber = 536870911;

// A varint of at most ten bytes whose value fits in 64 bits.
bool varint(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
  v = 0;
  for (int i = 0; i < 10; i++) {
    if (p == end) return false;
    const uint8_t b = *p++;
    if (i == 9 && b > 1) return false;
    v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

bool length(const uint8_t*& p, const uint8_t* end, uint64_t& len) {
  return varint(p, end, len) && len <= static_cast<uint64_t>(end - p);
}

// Skips one field's value (a group: up to its matching end, nested groups included).
Error skip(uint32_t wt, uint64_t number, const uint8_t*& p, const uint8_t* end, int depth) {
  uint64_t v;
  switch (wt) {
    case kVarint:
      return varint(p, end, v) ? Error::ok : Error::proto_malformed;
    case kI64:
      if (end - p < 8) return Error::proto_malformed;
      p += 8;
      return Error::ok;
    case kI32:
      if (end - p < 4) return Error::proto_malformed;
      p += 4;
      return Error::ok;
    case kLen:
      if (!length(p, end, v)) return Error::proto_malformed;
      p += v;
      return Error::ok;
    case kStartGroup:
      if (depth >= kMaxDepth) return Error::proto_depth;
      for (;;) {
        uint64_t key;
        if (!varint(p, end, key)) return Error::proto_malformed;
        const uint32_t inner = static_cast<uint32_t>(key & 7);
        if ((key >> 3) == 0 || (key >> 3) > kMaxFieldNumber) return Error::proto_malformed;
        if (inner == kEndGroup) return (key >> 3) == number ? Error::ok : Error::proto_malformed;
        if (Error e = skip(inner, key >> 3, p, end, depth + 1); e != Error::ok) return e;
      }
    default:
      return Error::proto_malformed;
  }
}

// One whole field as the bytes of an unknown-field entry hold it: a tag, then a value ending exactly
// at the end (what decode keeps; encode takes nothing else from a caller).
bool one_field(std::span<const uint8_t> bytes) {
  const uint8_t* p = bytes.data();
  const uint8_t* const end = p + bytes.size();
  uint64_t key;
  if (!varint(p, end, key)) return false;
  const uint32_t wt = static_cast<uint32_t>(key & 7);
  if ((key >> 3) == 0 || (key >> 3) > kMaxFieldNumber || wt == kEndGroup) return false;
  return skip(wt, key >> 3, p, end, 0) == Error::ok && p == end;
}

class Decoder {
 public:
  Decoder(const Schema& s, std::span<const uint8_t> in, std::vector<int32_t>& words)
      : s_(s), base_(in.data()), words_(words) {}

  Error message(uint32_t type, const uint8_t* p, const uint8_t* end, int depth) {
    if (depth > kMaxDepth) return Error::proto_depth;
    while (p < end) {
      const uint8_t* const start = p;
      uint64_t key;
      if (!varint(p, end, key)) return Error::proto_malformed;
      const uint32_t wt = static_cast<uint32_t>(key & 7);
      const uint64_t number = key >> 3;
      if (number == 0 || number > kMaxFieldNumber) return Error::proto_malformed;
      const int index = s_.find(type, number);
      if (index >= 0) {
        const Field& f = s_.field(type, index);
        const uint32_t expected = wire_type_of(f.kind);
        if (wt == expected) {
          if (Error e = field(f, index, p, end, depth); e != Error::ok) return e;
          continue;
        }
        if (wt == kLen && (f.flags & kRepeated) && expected != kLen) {
          if (Error e = packed(f, index, p, end); e != Error::ok) return e;
          continue;
        }
      }
      // Not declared, or not with this wire type: kept as it came.
      if (Error e = skip(wt, number, p, end, depth); e != Error::ok) return e;
      if (!entry(kUnknown) || !push(offset(start)) || !push(static_cast<int32_t>(p - start))) return Error::proto_too_large;
    }
    return p == end ? Error::ok : Error::proto_malformed;
  }

 private:
  const Schema& s_;
  const uint8_t* base_;
  std::vector<int32_t>& words_;

  int32_t offset(const uint8_t* p) const { return static_cast<int32_t>(p - base_); }

  bool push(int32_t w) {
    if (words_.size() >= kMaxTapeWords) return false;
    words_.push_back(w);
    return true;
  }
  // Each entry becomes a value (and an allocation) on the JS side: counted against kMaxValues.
  bool entry(int32_t header) { return ++values_ <= kMaxValues && push(header); }
  size_t values_ = 0;

  // One scalar of `kind` at p (its wire type already checked), as tape words.
  Error scalar(uint8_t kind, const uint8_t*& p, const uint8_t* end) {
    uint64_t v = 0;
    switch (kind) {
      case kInt32:
      case kUint32:
      case kEnum:
        if (!varint(p, end, v)) return Error::proto_malformed;
        return push(static_cast<int32_t>(static_cast<uint32_t>(v))) ? Error::ok : Error::proto_too_large;
      case kBool:
        if (!varint(p, end, v)) return Error::proto_malformed;
        return push(v != 0 ? 1 : 0) ? Error::ok : Error::proto_too_large;
      case kSint32: {
        if (!varint(p, end, v)) return Error::proto_malformed;
        const uint32_t u = static_cast<uint32_t>(v);
        return push(static_cast<int32_t>((u >> 1) ^ (0u - (u & 1)))) ? Error::ok : Error::proto_too_large;
      }
      case kInt64:
      case kUint64:
        if (!varint(p, end, v)) return Error::proto_malformed;
        break;
      case kSint64:
        if (!varint(p, end, v)) return Error::proto_malformed;
        v = (v >> 1) ^ (0 - (v & 1));
        break;
      case kFixed32:
      case kSfixed32:
      case kFloat: {
        if (end - p < 4) return Error::proto_malformed;
        uint32_t u;
        std::memcpy(&u, p, 4);  // little-endian, as wasm and the native targets are
        p += 4;
        return push(static_cast<int32_t>(u)) ? Error::ok : Error::proto_too_large;
      }
      case kFixed64:
      case kSfixed64:
      case kDouble:
        if (end - p < 8) return Error::proto_malformed;
        std::memcpy(&v, p, 8);
        p += 8;
        break;
      default:
        return Error::proto_malformed;
    }
    return push(static_cast<int32_t>(static_cast<uint32_t>(v))) && push(static_cast<int32_t>(static_cast<uint32_t>(v >> 32)))
               ? Error::ok
               : Error::proto_too_large;
  }

  // A length-delimited value of kind string, bytes or message (the length at p).
  Error delimited(uint8_t kind, int32_t type, const uint8_t*& p, const uint8_t* end, int depth) {
    uint64_t len;
    if (!length(p, end, len)) return Error::proto_malformed;
    const uint8_t* const body = p;
    p += len;
    if (kind == kMessage) {
      if (Error e = message(static_cast<uint32_t>(type), body, p, depth + 1); e != Error::ok) return e;
      return push(kEnd) ? Error::ok : Error::proto_too_large;
    }
    int32_t tail = 0;
    if (kind == kString) {
      uint8_t any = 0;
      for (const uint8_t* q = body; q < p; q++) any |= *q;
      tail = (any & 0x80) ? 1 : 0;
      if (len > 0x3FFFFFFF) return Error::proto_too_large;
      len = len * 2;
    }
    return push(offset(body)) && push(static_cast<int32_t>(len) + tail) ? Error::ok : Error::proto_too_large;
  }

  Error field(const Field& f, int index, const uint8_t*& p, const uint8_t* end, int depth) {
    if (!entry(index)) return Error::proto_too_large;
    if (f.flags & kMapField) return map_entry(f, p, end, depth);
    if (wire_type_of(f.kind) == kLen) return delimited(f.kind, f.type, p, end, depth);
    return scalar(f.kind, p, end);
  }

  Error packed(const Field& f, int index, const uint8_t*& p, const uint8_t* end) {
    uint64_t len;
    if (!length(p, end, len)) return Error::proto_malformed;
    const uint8_t* const stop = p + len;
    while (p < stop) {
      if (!entry(index)) return Error::proto_too_large;
      if (Error e = scalar(f.kind, p, stop); e != Error::ok) return e;
    }
    return Error::ok;
  }

  // A default for a key or value the entry left out.
  Error absent(uint8_t kind, int32_t type, int depth) {
    if (kind == kMessage) {
      if (depth + 1 > kMaxDepth) return Error::proto_depth;
      return push(kEnd) ? Error::ok : Error::proto_too_large;
    }
    const int n = two_words(kind) ? 2 : 1;
    for (int i = 0; i < n; i++)
      if (!push(0)) return Error::proto_too_large;
    (void)type;
    return Error::ok;
  }

  // A map entry: a message with key = 1 and value = 2, either missing, in any order, repeated.
  Error map_entry(const Field& f, const uint8_t*& p, const uint8_t* end, int depth) {
    uint64_t len;
    if (!length(p, end, len)) return Error::proto_malformed;
    const uint8_t* q = p;
    const uint8_t* const stop = p + len;
    p = stop;
    // The last key and value win; find them first, then write key, value.
    const uint8_t* key_at = nullptr;
    const uint8_t* value_at = nullptr;
    while (q < stop) {
      uint64_t key;
      if (!varint(q, stop, key)) return Error::proto_malformed;
      const uint32_t wt = static_cast<uint32_t>(key & 7);
      const uint64_t number = key >> 3;
      if (number == 1 && wt == wire_type_of(f.key_kind)) key_at = q;
      else if (number == 2 && wt == wire_type_of(f.value_kind)) value_at = q;
      if (number == 0 || number > kMaxFieldNumber) return Error::proto_malformed;
      if (Error e = skip(wt, number, q, stop, depth); e != Error::ok) return e;
    }
    for (int part = 0; part < 2; part++) {
      const uint8_t kind = part == 0 ? f.key_kind : f.value_kind;
      const int32_t type = part == 0 ? -1 : f.type;
      const uint8_t* at = part == 0 ? key_at : value_at;
      if (at == nullptr) {
        if (Error e = absent(kind, type, depth); e != Error::ok) return e;
        continue;
      }
      const Error e = wire_type_of(kind) == kLen ? delimited(kind, type, at, stop, depth) : scalar(kind, at, stop);
      if (e != Error::ok) return e;
    }
    return Error::ok;
  }
};

// ---------------------------------------------------------------------------------------------------
// Encoding: a first pass checks the tape and measures every nested message and packed run (in the
// order the second pass meets them), the second writes.

size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

class Encoder {
 public:
  Encoder(const Schema& s, std::span<const int32_t> words, std::span<const uint8_t> area)
      : s_(s), w_(words), area_(area) {}

  Error measure_all(uint32_t type, uint64_t& size) {
    size_t pos = 0;
    if (Error e = measure(type, pos, 0, size); e != Error::ok) return e;
    return pos == w_.size() ? Error::ok : Error::proto_tape;
  }

  void write_all(uint32_t type, std::vector<uint8_t>& out, size_t size) {
    const size_t start = out.size();
    out.resize(start + size);
    o_ = out.data() + start;
    size_t pos = 0;
    next_size_ = 0;
    write(type, pos);
  }

 private:
  const Schema& s_;
  std::span<const int32_t> w_;
  std::span<const uint8_t> area_;
  std::vector<uint64_t> sizes_;  // nested messages, map entries and packed runs, in writing order
  size_t next_size_ = 0;
  uint8_t* o_ = nullptr;

  bool word(size_t& pos, int32_t& v) const {
    if (pos >= w_.size()) return false;
    v = w_[pos++];
    return true;
  }

  // Size of one value of kind at pos (moved past it); nested messages measured recursively.
  Error value_size(uint8_t kind, int32_t type, size_t& pos, int depth, uint64_t& size) {
    int32_t a, b;
    switch (kind) {
      case kInt32:
      case kEnum:
        if (!word(pos, a)) return Error::proto_tape;
        size = varint_size(static_cast<uint64_t>(static_cast<int64_t>(a)));  // negative: ten bytes
        return Error::ok;
      case kUint32:
        if (!word(pos, a)) return Error::proto_tape;
        size = varint_size(static_cast<uint32_t>(a));
        return Error::ok;
      case kSint32:
        if (!word(pos, a)) return Error::proto_tape;
        size = varint_size((static_cast<uint32_t>(a) << 1) ^ static_cast<uint32_t>(a >> 31));
        return Error::ok;
      case kBool:
        if (!word(pos, a)) return Error::proto_tape;
        size = 1;
        return Error::ok;
      case kFixed32:
      case kSfixed32:
      case kFloat:
        if (!word(pos, a)) return Error::proto_tape;
        size = 4;
        return Error::ok;
      case kFixed64:
      case kSfixed64:
      case kDouble:
        if (!word(pos, a) || !word(pos, b)) return Error::proto_tape;
        size = 8;
        return Error::ok;
      case kInt64:
      case kUint64:
      case kSint64: {
        if (!word(pos, a) || !word(pos, b)) return Error::proto_tape;
        uint64_t v = (static_cast<uint64_t>(static_cast<uint32_t>(b)) << 32) | static_cast<uint32_t>(a);
        if (kind == kSint64) v = (v << 1) ^ static_cast<uint64_t>(static_cast<int64_t>(v) >> 63);
        size = varint_size(v);
        return Error::ok;
      }
      case kString:
      case kBytes:
        if (!word(pos, a) || !word(pos, b)) return Error::proto_tape;
        if (a < 0 || b < 0 || static_cast<uint64_t>(a) + static_cast<uint64_t>(b) > area_.size()) return Error::proto_tape;
        size = varint_size(static_cast<uint32_t>(b)) + static_cast<uint32_t>(b);
        return Error::ok;
      case kMessage: {
        const size_t slot = sizes_.size();
        sizes_.push_back(0);
        uint64_t body = 0;
        if (Error e = measure(static_cast<uint32_t>(type), pos, depth + 1, body); e != Error::ok) return e;
        sizes_[slot] = body;
        size = varint_size(body) + body;
        return Error::ok;
      }
      default:
        return Error::proto_tape;
    }
  }

  Error measure(uint32_t type, size_t& pos, int depth, uint64_t& size) {
    if (depth > kMaxDepth) return Error::proto_depth;
    const Message& m = s_.messages[type];
    size = 0;
    for (;;) {
      int32_t h;
      if (!word(pos, h)) return Error::proto_tape;
      if (h == kEnd) return Error::ok;
      if (h == kUnknown) {
        int32_t a, b;
        if (!word(pos, a) || !word(pos, b)) return Error::proto_tape;
        if (a < 0 || b < 0 || static_cast<uint64_t>(a) + static_cast<uint64_t>(b) > area_.size()) return Error::proto_tape;
        // The caller's bytes for a field the schema does not declare: exactly one well-formed field.
        if (!one_field(area_.subspan(static_cast<size_t>(a), static_cast<size_t>(b)))) return Error::proto_malformed;
        size += static_cast<uint32_t>(b);
      } else {
        if (h < 0 || static_cast<uint32_t>(h) >= m.field_count) return Error::proto_tape;
        const Field& f = s_.field(type, h);
        const size_t tag = varint_size(static_cast<uint64_t>(f.number) << 3);
        if (f.flags & kMapField) {
          const size_t slot = sizes_.size();
          sizes_.push_back(0);
          uint64_t k = 0, v = 0;
          if (Error e = value_size(f.key_kind, -1, pos, depth, k); e != Error::ok) return e;
          if (Error e = value_size(f.value_kind, f.type, pos, depth, v); e != Error::ok) return e;
          const uint64_t entry = 2 + k + v;  // two one-byte tags (numbers 1 and 2)
          sizes_[slot] = entry;
          size += tag + varint_size(entry) + entry;
        } else if (f.flags & kPacked) {
          // The run of entries of this field that starts here: one record.
          const size_t slot = sizes_.size();
          sizes_.push_back(0);
          uint64_t body = 0;
          for (;;) {
            uint64_t one = 0;
            if (Error e = value_size(f.kind, f.type, pos, depth, one); e != Error::ok) return e;
            body += one;
            if (pos < w_.size() && w_[pos] == h) {
              pos++;
              continue;
            }
            break;
          }
          sizes_[slot] = body;
          size += tag + varint_size(body) + body;
        } else {
          uint64_t one = 0;
          if (Error e = value_size(f.kind, f.type, pos, depth, one); e != Error::ok) return e;
          size += tag + one;
        }
      }
      if (size > kMaxEncoded) return Error::proto_too_large;
    }
  }

  void put_varint(uint64_t v) {
    while (v >= 0x80) {
      *o_++ = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    *o_++ = static_cast<uint8_t>(v);
  }
  void put_le(uint64_t v, int n) {
    for (int i = 0; i < n; i++) *o_++ = static_cast<uint8_t>(v >> (8 * i));
  }
  uint64_t pair(size_t& pos) {
    const uint32_t lo = static_cast<uint32_t>(w_[pos]);
    const uint32_t hi = static_cast<uint32_t>(w_[pos + 1]);
    pos += 2;
    return (static_cast<uint64_t>(hi) << 32) | lo;
  }

  void value(uint8_t kind, int32_t type, size_t& pos) {
    switch (kind) {
      case kInt32:
      case kEnum:
        put_varint(static_cast<uint64_t>(static_cast<int64_t>(w_[pos++])));
        return;
      case kUint32:
        put_varint(static_cast<uint32_t>(w_[pos++]));
        return;
      case kSint32: {
        const int32_t a = w_[pos++];
        put_varint((static_cast<uint32_t>(a) << 1) ^ static_cast<uint32_t>(a >> 31));
        return;
      }
      case kBool:
        *o_++ = w_[pos++] != 0 ? 1 : 0;
        return;
      case kFixed32:
      case kSfixed32:
      case kFloat:
        put_le(static_cast<uint32_t>(w_[pos++]), 4);
        return;
      case kFixed64:
      case kSfixed64:
      case kDouble:
        put_le(pair(pos), 8);
        return;
      case kInt64:
      case kUint64:
        put_varint(pair(pos));
        return;
      case kSint64: {
        const uint64_t v = pair(pos);
        put_varint((v << 1) ^ static_cast<uint64_t>(static_cast<int64_t>(v) >> 63));
        return;
      }
      case kString:
      case kBytes: {
        const uint32_t off = static_cast<uint32_t>(w_[pos]);
        const uint32_t len = static_cast<uint32_t>(w_[pos + 1]);
        pos += 2;
        put_varint(len);
        if (len != 0) std::memcpy(o_, area_.data() + off, len);
        o_ += len;
        return;
      }
      case kMessage:
        put_varint(sizes_[next_size_++]);
        write(static_cast<uint32_t>(type), pos);
        return;
      default:
        return;  // measured first: never reached
    }
  }

  void write(uint32_t type, size_t& pos) {
    for (;;) {
      const int32_t h = w_[pos++];
      if (h == kEnd) return;
      if (h == kUnknown) {
        const uint32_t off = static_cast<uint32_t>(w_[pos]);
        const uint32_t len = static_cast<uint32_t>(w_[pos + 1]);
        pos += 2;
        if (len != 0) std::memcpy(o_, area_.data() + off, len);
        o_ += len;
        continue;
      }
      const Field& f = s_.field(type, h);
      if (f.flags & kMapField) {
        put_varint((static_cast<uint64_t>(f.number) << 3) | kLen);
        put_varint(sizes_[next_size_++]);
        *o_++ = static_cast<uint8_t>((1 << 3) | wire_type_of(f.key_kind));
        value(f.key_kind, -1, pos);
        *o_++ = static_cast<uint8_t>((2 << 3) | wire_type_of(f.value_kind));
        value(f.value_kind, f.type, pos);
      } else if (f.flags & kPacked) {
        put_varint((static_cast<uint64_t>(f.number) << 3) | kLen);
        put_varint(sizes_[next_size_++]);
        for (;;) {
          value(f.kind, f.type, pos);
          if (pos < w_.size() && w_[pos] == h) {
            pos++;
            continue;
          }
          break;
        }
      } else {
        put_varint((static_cast<uint64_t>(f.number) << 3) | wire_type_of(f.kind));
        value(f.kind, f.type, pos);
      }
    }
  }
};

// A decoded tape in the encode form (strings: the length without the ASCII bit). The decoder
// wrote it, so it is well formed; the encoder checks it again all the same.
bool to_encode_form(const Schema& s, uint32_t type, std::span<const int32_t> in, size_t& pos, std::vector<int32_t>& out, int depth);

bool value_to_encode_form(const Schema& s, uint8_t kind, int32_t type, std::span<const int32_t> in, size_t& pos,
                          std::vector<int32_t>& out, int depth) {
  if (kind == kMessage) return to_encode_form(s, static_cast<uint32_t>(type), in, pos, out, depth + 1);
  const size_t n = two_words(kind) ? 2 : 1;
  if (pos + n > in.size()) return false;
  out.push_back(in[pos]);
  if (n == 2) out.push_back(kind == kString ? (in[pos + 1] >> 1) : in[pos + 1]);
  pos += n;
  return true;
}

bool to_encode_form(const Schema& s, uint32_t type, std::span<const int32_t> in, size_t& pos, std::vector<int32_t>& out, int depth) {
  if (depth > kMaxDepth) return false;
  while (pos < in.size()) {
    const int32_t h = in[pos++];
    out.push_back(h);
    if (h == kEnd) return true;
    if (h == kUnknown) {
      if (pos + 2 > in.size()) return false;
      out.push_back(in[pos]);
      out.push_back(in[pos + 1]);
      pos += 2;
      continue;
    }
    if (h < 0 || static_cast<uint32_t>(h) >= s.messages[type].field_count) return false;
    const Field& f = s.field(type, h);
    const bool ok = (f.flags & kMapField) ? value_to_encode_form(s, f.key_kind, -1, in, pos, out, depth) &&
                                                value_to_encode_form(s, f.value_kind, f.type, in, pos, out, depth)
                                          : value_to_encode_form(s, f.kind, f.type, in, pos, out, depth);
    if (!ok) return false;
  }
  return false;
}

}  // namespace

Error decode(uint32_t type, std::span<const uint8_t> in, std::vector<int32_t>& words) {
  words.clear();
  const Schema& s = schema();
  if (!s.ok || type >= s.messages.size()) return Error::type;
  if (in.size() > 0x7FFFFFFF) return Error::proto_too_large;
  Decoder d(s, in, words);
  if (Error e = d.message(type, in.data(), in.data() + in.size(), 0); e != Error::ok) return e;
  if (words.size() >= kMaxTapeWords) return Error::proto_too_large;
  words.push_back(kEnd);
  return Error::ok;
}

Error encode(uint32_t type, std::span<const int32_t> words, std::span<const uint8_t> area, std::vector<uint8_t>& out) {
  const Schema& s = schema();
  if (!s.ok || type >= s.messages.size()) return Error::type;
  Encoder e(s, words, area);
  uint64_t size = 0;
  if (Error err = e.measure_all(type, size); err != Error::ok) return err;
  e.write_all(type, out, static_cast<size_t>(size));
  return Error::ok;
}

Error reencode(uint32_t type, std::span<const int32_t> decoded, std::span<const uint8_t> in, std::vector<uint8_t>& out) {
  const Schema& s = schema();
  if (!s.ok || type >= s.messages.size()) return Error::type;
  std::vector<int32_t> words;
  words.reserve(decoded.size());
  size_t pos = 0;
  if (!to_encode_form(s, type, decoded, pos, words, 0) || pos != decoded.size()) return Error::proto_tape;
  return encode(type, words, in, out);
}

}  // namespace wacore::proto
