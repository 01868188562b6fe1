// Loop unrolling as a loop asks for it, in clang (wasm, fuzzing) and g++ (native) alike. Put on the
// line before a `for` whose trip count is a compile-time constant of at most 16.
#pragma once

#if defined(__clang__)
#define WACORE_UNROLL_ALL _Pragma("clang loop unroll(full)")
#define WACORE_UNROLL_NONE _Pragma("clang loop unroll(disable)")
#else
#define WACORE_UNROLL_ALL _Pragma("GCC unroll 16")
#define WACORE_UNROLL_NONE _Pragma("GCC unroll 1")
#endif
