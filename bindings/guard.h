// The one way out of memory leaves an export (wasm builds).
//
// The core allocates with operator new (bindings/wipe_on_free.cpp) and lets a failure throw
// std::bad_alloc: it has no out-of-memory branches of its own. Every export that reaches an
// allocation runs its body through guard(), which catches the exception once the core has been
// unwound: each frame's destructors have run, so everything it held is freed (and wiped, by the
// replaced operator delete), and the shadow-stack pointer is restored by the catch. The export then
// returns its own convention's out-of-memory value, which the JS side raises as ERR_OUT_OF_MEMORY.
// What outlives a call is left consistent (docs/build.md): records are the caller's, a Noise
// transport is unchanged, a failed handshake step ends the handshake, reused outputs are emptied.
#pragma once

#include <emscripten/stack.h>

#include <cstdint>
#include <utility>

#include "common/error.h"

namespace wacore::bindings {

// Zeroes the shadow stack below the caller's frame. The unwound frames may have left secrets there
// that their own wipes, skipped by the unwinding, would have cleared. Only after a failure: 256 KB.
// Nothing lives below the stack pointer, and this loop keeps its own state in wasm locals, not on
// the shadow stack, so everything from the stack's end up to the pointer is zeroed.
inline void wipe_free_stack() noexcept {
  volatile uint8_t* p = reinterpret_cast<volatile uint8_t*>(emscripten_stack_get_end());
  volatile uint8_t* const top = reinterpret_cast<volatile uint8_t*>(emscripten_stack_get_current());
  while (p < top) *p++ = 0;
}

// Runs body(); returns `out_of_memory` if an allocation failed inside it. std::length_error (a
// container asked for more than it can address) counts as the same; the core throws nothing else,
// but anything else is caught too, so that no exception reaches JS as a WebAssembly.Exception.
// The body runs in a frame of its own, below guard()'s, never inlined into it: its locals are then
// below the stack pointer the catch restores, where wipe_free_stack() reaches them.
template <typename F>
[[gnu::noinline]] auto run_body(F& body) {
  return body();
}

template <typename R, typename F>
R guard(R out_of_memory, F&& body) noexcept {
  try {
    return run_body(body);
  } catch (...) {
    wipe_free_stack();
    return out_of_memory;
  }
}

// As guard(), and `failed` tells whether an allocation failed and unwound the body: the body may
// also return the out-of-memory value itself (a parser that caught the failure, or the Noise
// transport after delivering frames).
template <typename R, typename F>
R guard(R out_of_memory, F&& body, bool& failed) noexcept {
  failed = true;
  return guard(out_of_memory, [&] {
    R r = body();
    failed = false;
    return r;
  });
}

// The out-of-memory value the generated exports' bodies return (the export then negates it).
inline constexpr int kOutOfMemory = static_cast<int>(Error::out_of_memory);

}  // namespace wacore::bindings
