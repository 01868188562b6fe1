// The module runtime: the random source the core draws from, the one I/O buffer every call places
// its inputs and outputs in, start-up, and the module-level calls embind registers (variant, init,
// ioBuffer, heapInUse). The per-operation entry points are plain wasm exports in the family files
// (bindings/<family>_bindings.cpp, declared in bindings/boundary.json) and generated layout exports
// (bindings/generated/exports.cpp).
#include <emscripten.h>
#include <emscripten/bind.h>
#include <malloc.h>
#include <sodium.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "common/random.h"

namespace {

using wacore::Error;

// Fills [p, p + n) from crypto.getRandomValues in as few JS calls as its 65,536-byte cap allows.
// Returns 0, or -1 if no secure source exists (the loader checks for one before instantiating).
// clang-format off
EM_JS(int, wacore_js_fill_random, (uint8_t * p, size_t n), {
  try {
    p >>>= 0;
    for (var off = 0; off < n; off += 65536) {
      crypto.getRandomValues(HEAPU8.subarray(p + off, p + off + Math.min(n - off, 65536)));
    }
    return 0;
  } catch (e) {
    return -1;
  }
});
// clang-format on

int js_random(uint8_t* buf, size_t n) noexcept { return wacore_js_fill_random(buf, n); }

// The I/O buffer: grows to the largest request seen and is then reused, so steady-state calls never
// allocate. The JS side wipes the part that held secrets after each call.
uint8_t* g_io = nullptr;
size_t g_io_size = 0;

// Returns the buffer's address once it holds at least n bytes, or 0 if memory cannot grow. It grows
// by half again what is asked, so a run of slowly rising sizes reallocates rarely; the headroom is
// clamped so that the size never wraps, and dropped when only the exact size fits.
uintptr_t io_buffer(size_t n) {
  if (n > g_io_size) {
    size_t want = 4096;
    if (n > want) want = n + std::min(n / 2, SIZE_MAX - n);
    auto* p = static_cast<uint8_t*>(std::malloc(want));
    if (p == nullptr && want > n) {
      want = n;
      p = static_cast<uint8_t*>(std::malloc(want));
    }
    if (p == nullptr) return 0;
    if (g_io != nullptr) {
      sodium_memzero(g_io, g_io_size);
      std::free(g_io);
    }
    g_io = p;
    g_io_size = want;
  }
  return reinterpret_cast<uintptr_t>(g_io);
}


// No sodium_init(): in this build it would only detect CPU features and pick implementations (wasm
// has one of each, already the static defaults), and draw the canary of libsodium's guarded
// allocator, which nothing here uses. That draw would load the host's crypto module at start-up
// (~13 M instructions in Node); randomness is first drawn, and paid for, when a key is made. The
// core draws only through js_random; libsodium's own randombytes (one Module.getRandomValue call
// per byte under Emscripten) is never reached.
int init() {
  wacore::set_random_source(&js_random, /*pooled=*/true);
  return 0;
}

// Bytes currently allocated by malloc (for the memory-stability tests).
size_t heap_in_use() { return mallinfo().uordblks; }

}  // namespace

EMSCRIPTEN_BINDINGS(wacore) {
  using emscripten::function;
  emscripten::constant("variant", std::string(WACORE_VARIANT));
  function("init", &init);
  function("ioBuffer", &io_buffer);
  function("heapInUse", &heap_in_use);
}
