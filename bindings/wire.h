// What the generated layout code (bindings/generated/boundary.h) is written in: a bounds-checked
// cursor over an input layout, zero defaults for fixed-size byte fields, the one output,
// run_export(), the body of every generated export, and the Value plain exports return
// (docs/architecture.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <sodium.h>

#include "common/error.h"
#include "output.h"

namespace wacore::bindings {

// The output every generated export writes to (its { address, length } view is wacore_out()).
Output& output();

namespace wire {

// What the family function of a plain export whose result is a value returns (bindings/boundary.json,
// "plain"): a non-negative value (a length, a handle, 0 or 1), or an Error; the export returns it as
// the value or as -Error.
class Value {
 public:
  Value(Error e) : raw(-static_cast<int32_t>(e)) {}  // NOLINT: `return Error::x;` is the failure form
  // A value that does not fit the convention (2^31 or more: a length or an address past 2 GiB,
  // which this module's memory does not reach) is ERR_OUT_OF_MEMORY rather than a negative number.
  static Value of(size_t v) {
    return v <= static_cast<size_t>(INT32_MAX) ? Value(static_cast<int32_t>(v)) : Value(Error::out_of_memory);
  }
  int32_t raw;

 private:
  explicit Value(int32_t r) : raw(r) {}
};

// What a fixed-size byte field holds before it is read: zeros, never a null span.
inline constexpr std::array<uint8_t, 256> kZeros{};
template <size_t N>
std::span<const uint8_t, N> zeros() {
  static_assert(N <= kZeros.size());
  return std::span<const uint8_t, N>(kZeros.data(), N);
}

// What the generated to_core() copies a field with (bindings/boundary.json, "core"): bytes into an
// array of exactly their size (another size has no overload: a compile error), a vector or a span;
// a scalar into the member's type, or back (an enum included). A value wider than where it goes,
// or of the other signedness, does not compile.
template <size_t N>
void assign(std::array<uint8_t, N>& dst, std::span<const uint8_t, N> src) {
  std::memcpy(dst.data(), src.data(), N);
}
inline void assign(std::span<const uint8_t>& dst, std::span<const uint8_t> src) { dst = src; }
inline void assign(std::vector<uint8_t>& dst, std::span<const uint8_t> src) { dst.assign(src.begin(), src.end()); }
template <typename T, typename U>
  requires(std::is_arithmetic_v<T> || std::is_enum_v<T>) && (std::is_arithmetic_v<U> || std::is_enum_v<U>)
void assign(T& dst, U src) {
  static_assert(std::is_enum_v<T> || std::is_enum_v<U> || sizeof(T) >= sizeof(U), "a value wider than where it goes");
  static_assert(std::is_enum_v<T> || std::is_enum_v<U> || std::is_signed_v<T> == std::is_signed_v<U>, "a value of the other signedness");
  dst = static_cast<T>(src);
}
// And what from_core() views a core struct's bytes through.
template <size_t N>
std::span<const uint8_t, N> view(const std::array<uint8_t, N>& b) {
  return b;
}
inline std::span<const uint8_t> view(std::span<const uint8_t> b) { return b; }
inline std::span<const uint8_t> view(const std::vector<uint8_t>& b) { return b; }
inline std::span<const uint8_t> view(const std::string& b) {
  return {reinterpret_cast<const uint8_t*>(b.data()), b.size()};
}

class Cursor;

// An input list, kept as the bytes it was read from (validated when the layout was parsed, with no
// vector allocated); for_each() reads each item in turn.
template <typename Item>
class Items {
 public:
  Items() = default;
  Items(std::span<const uint8_t> bytes, size_t n) : bytes_(bytes), n_(n) {}
  size_t size() const { return n_; }
  template <typename F>
  void for_each(F f) const;

 private:
  std::span<const uint8_t> bytes_;
  size_t n_ = 0;
};

// An output list: n items, each made when it is written from the caller's container by a
// captureless function (no vector of items is built). Made by each().
template <typename Item>
struct Each {
  const void* ctx = nullptr;
  size_t n = 0;
  Item (*at)(const void*, size_t) = nullptr;
};
template <typename Item, typename Container, typename F>
Each<Item> each(const Container& c, F) {
  static_assert(std::is_empty_v<F>, "each() takes a captureless lambda");
  return {&c, c.size(), [](const void* ctx, size_t i) -> Item { return F{}((*static_cast<const Container*>(ctx))[i]); }};
}

// Reads an input layout. Reading past the end, or a list longer than its limit or than the bytes
// left could hold, clears ok and yields zeros and empty spans from then on.
class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> in) : p_(in.data()), end_(in.data() + in.size()) {}
  bool ok() const { return ok_; }
  bool at_end() const { return p_ == end_; }

  uint8_t u8() {
    const uint8_t* p = take(1);
    return p != nullptr ? *p : 0;
  }
  uint32_t u32() {
    const uint8_t* p = take(4);
    uint32_t v = 0;
    if (p != nullptr) std::memcpy(&v, p, 4);  // little endian, as wasm is
    return v;
  }
  uint64_t u64() {
    const uint64_t hi = u32();
    return hi << 32 | u32();
  }
  template <size_t N>
  std::span<const uint8_t, N> bytes() {
    const uint8_t* p = take(N);
    return p != nullptr ? std::span<const uint8_t, N>(p, N) : zeros<N>();
  }
  std::span<const uint8_t> field() {
    const uint32_t n = u32();
    const uint8_t* p = take(n);
    return p != nullptr ? std::span<const uint8_t>(p, n) : std::span<const uint8_t>();
  }
  std::span<const uint8_t> rest() {
    std::span<const uint8_t> s(p_, ok_ ? static_cast<size_t>(end_ - p_) : 0);
    p_ = end_;
    return s;
  }
  // A list's count: at most `max`, and no more items of `min_item` bytes than the bytes left hold
  // (so a forged count cannot make the reader allocate).
  size_t count(size_t min_item, size_t max) {
    const uint32_t n = u32();
    if (!ok_ || n > max || (min_item > 0 && n > static_cast<size_t>(end_ - p_) / min_item)) {
      ok_ = false;
      return 0;
    }
    return n;
  }
  // A list of items: each is read once here, to validate it, and again by Items::for_each().
  template <typename Item>
  Items<Item> items(size_t min_item, size_t max) {
    const size_t n = count(min_item, max);
    const uint8_t* start = p_;
    for (size_t i = 0; i < n && ok_; i++) {
      Item item;
      read(*this, item);
    }
    return ok_ ? Items<Item>({start, static_cast<size_t>(p_ - start)}, n) : Items<Item>();
  }

 private:
  const uint8_t* take(size_t n) {
    if (!ok_ || static_cast<size_t>(end_ - p_) < n) {
      ok_ = false;
      return nullptr;
    }
    const uint8_t* p = p_;
    p_ += n;
    return p;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

template <typename Item>
template <typename F>
void Items<Item>::for_each(F f) const {
  Cursor c(bytes_);
  for (size_t i = 0; i < n_; i++) {
    Item item;
    read(c, item);
    f(item);
  }
}

}  // namespace wire

// Writes a result layout as the output and returns 0, for a body to return.
template <typename T>
int emit(const T& v) {
  write(output(), v);
  return output().done();
}

// Emits `out` with the serialized record `bin` as its last field, then wipes `bin`.
template <typename Out>
int emit_serialized(Out& out, std::string& bin) {
  out.record = {reinterpret_cast<const uint8_t*>(bin.data()), bin.size()};
  const int result = emit(out);
  sodium_memzero(bin.data(), bin.size());
  return result;
}

// The body of every generated export: empties the output and runs parse (which reads the input
// layout and, if it is well formed, runs the export's body) through the guard. Returns 0 or the
// Error. One function for every export, so the guard's unwinding code exists once.
int run_export(uintptr_t in, size_t len, int (*parse)(wire::Cursor&)) noexcept;

// Reads In (a malformed layout is Error::data_length: only a bug on the JS side makes one) and runs
// Body on it.
template <typename In, int (*Body)(const In&)>
int parse_and_run(wire::Cursor& c) {
  In v;
  read(c, v);
  if (!c.ok() || !c.at_end()) return static_cast<int>(Error::data_length);
  return Body(v);
}

}  // namespace wacore::bindings
