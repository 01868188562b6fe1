// The core's one source of randomness.
//
// Natively it is libsodium's randombytes (getrandom/urandom). The wasm bindings replace it with a
// function that fills the whole request from crypto.getRandomValues in one JS call, because
// libsodium's own Emscripten path costs one JS call per byte and fails in Node ES modules.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/error.h"

namespace wacore {

// Fills buf[0, n) with random bytes; returns 0 on success, nonzero if the source failed.
using RandomSource = int (*)(uint8_t* buf, size_t n) noexcept;

// Bytes fetched from a pooled source at a time. In Node 20 one crypto.getRandomValues call costs about
// 5 us whatever its size up to a few KB, more than a key generation's own arithmetic saves by SIMD.
inline constexpr size_t kRandomPoolBytes = 2048;
// Requests above this size bypass the pool and go to the source directly.
inline constexpr size_t kRandomPoolMaxDraw = 256;

// Installs `source` for all later draws (nullptr restores the default) and empties the pool. With
// `pooled`, small requests are served from a kRandomPoolBytes buffer refilled in one source call;
// bytes are wiped from the pool as they are handed out. Not thread safe: call once at start-up.
void set_random_source(RandomSource source, bool pooled = false) noexcept;

// Fills buf[0, n) from the installed source. On failure the buffer is zeroed and Error::entropy is
// returned, so a caller can never go on with half-random key material by mistake.
Error random_bytes(uint8_t* buf, size_t n) noexcept;

}  // namespace wacore
