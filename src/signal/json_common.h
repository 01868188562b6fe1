// What the two JSON record formats (libsignal-node's sessions, Baileys' sender keys) share: RapidJSON's
// configuration, base64 byte fields and integer members.
#pragma once

#define RAPIDJSON_ASSERT(x) ((void)0)
#define RAPIDJSON_HAS_STDSTRING 0
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "common/base64.h"

namespace wacore::signal::json {

// RapidJSON's base allocator, on operator new and delete: its blocks (the parsed document, the
// written text: both hold keys in base64) are then wiped when freed, as every C++ block of the wasm
// module is (bindings/wipe_on_free.cpp), and a failed allocation throws std::bad_alloc like any other
// in the core. RapidJSON's own CrtAllocator frees without wiping and hands a failed malloc's null on
// for its stack to be written through.
struct Allocator {
  static const bool kNeedFree = true;
  void* Malloc(size_t size) { return size == 0 ? nullptr : ::operator new(size); }
  void* Realloc(void* old, size_t old_size, size_t new_size) {
    if (new_size == 0) {
      Free(old);
      return nullptr;
    }
    void* p = ::operator new(new_size);
    if (old != nullptr) {
      std::memcpy(p, old, std::min(old_size, new_size));
      ::operator delete(old);
    }
    return p;
  }
  static void Free(void* p) noexcept { ::operator delete(p); }
};
using Document = rapidjson::GenericDocument<rapidjson::UTF8<>, rapidjson::MemoryPoolAllocator<Allocator>, Allocator>;
using Value = Document::ValueType;
using StringBuffer = rapidjson::GenericStringBuffer<rapidjson::UTF8<>, Allocator>;

// Numbers are kept as their text (kParseNumbersAsStringsFlag) and read by integer() below, so
// RapidJSON's double conversion and its power tables are never linked (3.5 KB gzip of the module).
// The records hold integers only.
inline constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;

// Base64 of exactly N bytes, padded or not (Node's Buffer writes and accepts both); constant-time.
template <size_t N>
bool b64_fixed(const Value* v, std::array<uint8_t, N>& out) {
  if (v == nullptr || !v->IsString()) return false;
  return base64::decode(v->GetString(), v->GetStringLength(), out);
}

// Writes N bytes as a padded base64 string (a value, or a member name where the writer expects one).
template <size_t N, typename Writer>
void write_b64(Writer& w, const std::array<uint8_t, N>& bytes) {
  char text[base64::kPadded<N> + 1];
  base64::encode(bytes, text);
  w.String(text, static_cast<rapidjson::SizeType>(base64::kPadded<N>));
  sodium_memzero(text, sizeof text);
}

// A number member with an integral value in [lo, hi]: "12", "-3", also "12.0" and "1.2e1" as a
// JavaScript writer could produce them. Under kParseFlags a string member holding such text reads the
// same; nothing else does. Values past 18 digits are refused (every range here is below 2^53).
inline bool integer(const Value& v, int64_t lo, int64_t hi, int64_t& out) {
  if (!v.IsString()) return false;
  const char* p = v.GetString();
  const char* const end = p + v.GetStringLength();
  const bool negative = p != end && *p == '-';
  if (negative) p++;
  const auto digit = [&] { return p != end && *p >= '0' && *p <= '9'; };
  // The significant digits of the integer and fraction parts, and the power of ten they scale by.
  char digits[24];
  size_t n = 0;
  int64_t exp10 = 0;
  bool any = false;
  for (bool fraction = false;; p++) {
    if (!fraction && p != end && *p == '.') {
      fraction = true;
      continue;
    }
    if (!digit()) break;
    any = true;
    if (n == 0 && *p == '0') {  // leading zeros add nothing
      exp10 -= fraction;
      continue;
    }
    if (n == sizeof digits) return false;
    digits[n++] = *p;
    exp10 -= fraction;
  }
  if (p != end && (*p == 'e' || *p == 'E')) {
    p++;
    const bool minus = p != end && *p == '-';
    if (p != end && (*p == '-' || *p == '+')) p++;
    int64_t e = 0;
    for (; digit(); p++) {
      if (e < 1000) e = e * 10 + (*p - '0');
    }
    exp10 += minus ? -e : e;
  }
  if (!any || p != end) return false;
  while (exp10 < 0 && n > 0 && digits[n - 1] == '0') {  // trailing fraction zeros
    n--;
    exp10++;
  }
  if (n == 0) exp10 = 0;
  if (exp10 < 0 || static_cast<int64_t>(n) + exp10 > 18) return false;
  int64_t value = 0;
  for (size_t i = 0; i < n; i++) value = value * 10 + (digits[i] - '0');
  for (int64_t i = 0; i < exp10; i++) value *= 10;
  out = negative ? -value : value;
  return out >= lo && out <= hi;
}

}  // namespace wacore::signal::json
