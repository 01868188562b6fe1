// Hooks for the constant-time test (tests/native/ct_test.cpp, built with WACORE_CT_TEST).
//
// That build marks secret inputs as undefined memory for valgrind's memcheck, which then reports
// every branch and every memory index that depends on them: a timing leak becomes a test failure.
// Results that are meant to become public ("the tag matched", "the padding was valid") pass through
// declassify() before anything branches on them. In every other build the hooks compile to nothing.
#pragma once

#include <cstddef>

#ifdef WACORE_CT_TEST
#include <valgrind/memcheck.h>
#define WACORE_CT_SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define WACORE_CT_PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#else
#define WACORE_CT_SECRET(p, n) ((void)(p), (void)(n))
#define WACORE_CT_PUBLIC(p, n) ((void)(p), (void)(n))
#endif

namespace wacore::ct {

// Returns v, marked public: use only where the value is disclosed by design.
template <typename T>
inline T declassify(T v) noexcept {
  WACORE_CT_PUBLIC(&v, sizeof v);
  return v;
}

}  // namespace wacore::ct
