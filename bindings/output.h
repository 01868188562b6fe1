// The output buffer the generated exports write their result layouts to (bindings/wire.h, one
// instance for all of them), records parsed from an input, and the guard every export runs its
// body through. The buffer is reused, so steady-state calls do not grow memory; reset() wipes what
// the last call left, and the JS side (npm/lib/internal/boundary-runtime.mjs) copies the result out
// and wipes it too.
#pragma once

#include <sodium.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "guard.h"

namespace wacore::bindings {

template <typename T = uint8_t>
T* at(uintptr_t p) {
  return reinterpret_cast<T*>(p);
}
inline std::span<const uint8_t> bytes(uintptr_t p, size_t n) { return {at(p), n}; }
inline int rc(Error e) { return static_cast<int>(e); }

// A record parsed from the I/O buffer; its secrets are wiped when the call ends.
template <typename Record, Error (*Parse)(std::span<const uint8_t>, Record&), void (*Wipe)(Record&) noexcept>
struct Parsed {
  Record record;
  Error error;
  explicit Parsed(std::span<const uint8_t> in) : error(Parse(in, record)) {}
  Parsed(uintptr_t p, size_t n) : Parsed(bytes(p, n)) {}
  ~Parsed() { Wipe(record); }
  Parsed(const Parsed&) = delete;
  Parsed& operator=(const Parsed&) = delete;
};

// Parses a record and runs body(record), returning what it returns; a record that does not parse is
// its error, and body never runs. Either way the record is wiped on the way out.
// Callers mark their lambda always_inline as this is: the family files build at -Oz, which would
// keep each body as a function of its own (0.4 KB for the fifteen).
template <typename P, typename F>
[[gnu::always_inline]] inline int with_parsed(std::span<const uint8_t> in, F&& body) {
  P parsed(in);
  if (parsed.error != Error::ok) return rc(parsed.error);
  return body(parsed.record);
}

class Output {
 public:
  void reset() {
    if (!buf_.empty()) sodium_memzero(buf_.data(), buf_.size());
    buf_.clear();
  }
  // Room for n bytes, so that outputs up to that size never reallocate.
  void reserve(size_t n) { buf_.reserve(n); }
  void u8(uint8_t v) { buf_.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; i++) buf_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  // High word first.
  void u64(uint64_t v) {
    u32(static_cast<uint32_t>(v >> 32));
    u32(static_cast<uint32_t>(v));
  }
  void bytes(std::span<const uint8_t> b) { buf_.insert(buf_.end(), b.begin(), b.end()); }
  // A u32 length, then the bytes.
  void field(std::span<const uint8_t> b) {
    u32(static_cast<uint32_t>(b.size()));
    bytes(b);
  }
  // Publishes the results; returns 0 (success) for the glue function to return.
  int done() {
    view_.ptr = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(buf_.data()));
    view_.len = static_cast<uint32_t>(buf_.size());
    return 0;
  }
  // Runs an export's body through guard(): out of memory is kOutOfMemory, with the partial output
  // wiped, and the free stack too when a parser caught the failure itself and returned the error
  // (guard() wipes it when it caught the exception).
  template <typename F>
  int run(F&& body) noexcept {
    bool caught = false;
    const int r = guard(kOutOfMemory, std::forward<F>(body), caught);
    if (r == kOutOfMemory) {
      reset();
      if (!caught) wipe_free_stack();
    }
    return r;
  }
  // The address of { uint32 ptr, uint32 len } for the JS side.
  uintptr_t view() const { return reinterpret_cast<uintptr_t>(&view_); }

 private:
  std::vector<uint8_t> buf_;
  struct {
    uint32_t ptr = 0;
    uint32_t len = 0;
  } view_;
};

}  // namespace wacore::bindings
