// GHASH, the universal hash of AES-GCM (NIST SP 800-38D), in constant time.
//
// Multiplication in GF(2^128) needs carry-less products. wasm has no carry-less multiply, and the
// usual fast software form (Shoup's 4-bit tables) indexes tables with secret-dependent bits. Here
// carry-less products come from ordinary integer multiplications of operands whose bits are spread
// four apart, so carries never reach a bit that is kept (see bmul32 in ghash.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace wacore::ghash {

inline constexpr size_t kBlockBytes = 16;

struct State {
  uint64_t h_hi, h_lo;  // the hash key H = AES_K(0^128), big-endian halves
  uint64_t y_hi, y_lo;  // the running value Y
};

// Starts a hash under key h (16 bytes) with Y = 0.
void init(State& s, const uint8_t h[kBlockBytes]) noexcept;
// Absorbs len bytes; a final partial block is zero-padded (GCM pads AAD and ciphertext separately).
void update(State& s, const uint8_t* data, size_t len) noexcept;
// Absorbs the GCM length block: bit lengths of AAD and ciphertext, 64-bit big-endian each.
void update_lengths(State& s, uint64_t aad_bytes, uint64_t data_bytes) noexcept;
// Writes Y.
void digest(const State& s, uint8_t out[kBlockBytes]) noexcept;
void wipe(State& s) noexcept;

}  // namespace wacore::ghash
