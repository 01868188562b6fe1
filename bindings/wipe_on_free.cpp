// Every block the C++ core frees is zeroed first (wasm builds only). The core wipes the keys it
// holds in named temporaries, but containers move their contents when they grow (a record's
// session list, an output being written) and free the old storage themselves: without this, root,
// chain and ratchet keys stayed readable in freed heap after an operation returned
// (tests/js/memory-scan.test.mjs scans the whole memory after each call). operator new is the
// default (malloc); these replace the deletes, which all C++ allocation in the module goes through.
#include <malloc.h>
#include <sodium.h>

#include <cstdlib>
#include <new>

namespace {
void wipe_and_free(void* p) noexcept {
  if (p == nullptr) return;
  sodium_memzero(p, malloc_usable_size(p));
  std::free(p);
}
}  // namespace

void operator delete(void* p) noexcept { wipe_and_free(p); }
void operator delete[](void* p) noexcept { wipe_and_free(p); }
void operator delete(void* p, std::size_t) noexcept { wipe_and_free(p); }
void operator delete[](void* p, std::size_t) noexcept { wipe_and_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { wipe_and_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { wipe_and_free(p); }
