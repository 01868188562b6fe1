// The module's operator new and delete (wasm builds only).
//
// delete: every block the C++ core frees is zeroed first. The core wipes the keys it holds in named
// temporaries, but containers move their contents when they grow (a record's session list, an
// output being written) and free the old storage themselves: without this, root, chain and ratchet
// keys stayed readable in freed heap after an operation returned (tests/js/memory-scan.test.mjs
// scans the whole memory after each call).
//
// new: malloc, throwing std::bad_alloc when memory cannot grow, which bindings/guard.h turns into
// ERR_OUT_OF_MEMORY. wacore_failAllocation(n) makes the n-th allocation from now fail as if memory
// had run out: tests/js/oom-injected.test.mjs fails every allocation of every operation in turn, to prove that
// each one unwinds to ERR_OUT_OF_MEMORY with nothing held and nothing changed; wacore_liveAllocations()
// counts the blocks held, for it.
#include <emscripten.h>
#include <malloc.h>
#include <sodium.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#include "generated/boundary.h"

namespace {
uint32_t g_fail_countdown = 0;  // 0: no failure planned
uint32_t g_live = 0;            // blocks operator new handed out and delete has not taken back

void* allocate(std::size_t n) noexcept {
  if (g_fail_countdown != 0 && --g_fail_countdown == 0) return nullptr;
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p != nullptr) g_live++;
  return p;
}

void* allocate_or_throw(std::size_t n) {
  void* p = allocate(n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void wipe_and_free(void* p) noexcept {
  if (p == nullptr) return;
  g_live--;
  sodium_memzero(p, malloc_usable_size(p));
  std::free(p);
}
}  // namespace

// Test hooks, plain exports (bindings/boundary.json).
namespace wacore::bindings::plain {
// The blocks the core holds (operator new's, not yet deleted): an exact leak check, where the bytes
// malloc reports in use also move with how free regions split (tests/js/oom-injected.test.mjs).
size_t live_allocations() { return g_live; }

// Plans an allocation failure: the n-th operator new from now (1 = the next) fails; 0 cancels.
// Returns how many allocations were still to go before the plan it replaces, 0 if it had fired or
// none was planned: a test learns from it whether an operation reached its n-th allocation.
size_t fail_allocation(uint32_t n) {
  const uint32_t left = g_fail_countdown;
  g_fail_countdown = n;
  return left;
}
}  // namespace wacore::bindings::plain

void* operator new(std::size_t n) { return allocate_or_throw(n); }
void* operator new[](std::size_t n) { return allocate_or_throw(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }

void operator delete(void* p) noexcept { wipe_and_free(p); }
void operator delete[](void* p) noexcept { wipe_and_free(p); }
void operator delete(void* p, std::size_t) noexcept { wipe_and_free(p); }
void operator delete[](void* p, std::size_t) noexcept { wipe_and_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { wipe_and_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { wipe_and_free(p); }

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/wipe_on_free.inc"
