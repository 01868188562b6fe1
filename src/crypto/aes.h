// AES-256 block layer: key expansion and ECB over independent blocks, in constant time.
//
// Bitsliced (see aes_bitslice.h): the S-box is a Boolean circuit, so no table is ever indexed by
// key or data, and nothing branches on them. One algorithm serves every build: it runs on 64-bit
// words (4 blocks per batch) in the native and scalar wasm builds, and on wasm v128 words (8 blocks
// per batch) in the -msimd128 build. Modes (CBC, CTR, GCM) are built on top of these calls; they
// should hand over as many blocks per call as they can, ideally a multiple of kParallelBlocks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wacore::aes {

inline constexpr size_t kBlockBytes = 16;
inline constexpr size_t kKeyBytes = 32;
inline constexpr int kRounds = 14;
// Bit planes per bitsliced state: one per bit of a byte.
inline constexpr size_t kPlanes = 8;

// Expanded AES-256 key in the form the bitsliced rounds consume, for encryption and decryption
// alike. POD, no pointers, safe to memcpy; wipe with wipe().
//
// rk[r] is round key r as 8 bit planes in the 64-bit layout of aes_bitslice.h (the key repeated for
// the 4 blocks of a word; two-lane forms broadcast each word to both lanes). Two changes against
// FIPS-197, both undone by the rounds: round key r is stored in the byte order ShiftRows^-(r mod 4)
// produces (the rounds never move bytes for ShiftRows, "fixslicing"), and the S-box's constant 0x63
// is folded into round keys 1..14 (the S-box circuits run without their NOT gates).
struct Key {
  uint64_t rk[kRounds + 1][kPlanes];
};

// Expands a 32-byte key. Constant time: SubWord runs through the same bitsliced S-box as the
// rounds.
void expand_key(Key& k, const uint8_t key[kKeyBytes]) noexcept;

// Zeroes `k` in a way the compiler cannot drop.
void wipe(Key& k) noexcept;

// ECB over nblocks independent blocks: any count, including 0 and counts that are not a multiple of
// kParallelBlocks (the last batch is padded with zeros in a local buffer). in and out may be the
// same pointer (in place) or must not overlap.
void encrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept;
void decrypt_blocks(const Key& k, const uint8_t* in, uint8_t* out, size_t nblocks) noexcept;

// Number of blocks one batch processes in this build (4 with 64-bit words, 8 with v128 words):
// calls with fewer blocks cost as much as a whole batch, so callers batch to it.
#if defined(__wasm_simd128__)
inline constexpr size_t kParallelBlocks = 8;
#else
inline constexpr size_t kParallelBlocks = 4;
#endif

// Explicit forms for tests, available in every build whatever kParallelBlocks says: the 64-bit-word
// algorithm (4 blocks per batch) and the portable two-lane algorithm (8 blocks per batch), which
// computes exactly what the v128 form computes, lane for lane.
namespace detail {
inline constexpr size_t kBatchU64 = 4;
inline constexpr size_t kBatchPair = 8;

void encrypt_blocks_u64(const Key& k, const uint8_t* in, uint8_t* out, size_t n) noexcept;
void decrypt_blocks_u64(const Key& k, const uint8_t* in, uint8_t* out, size_t n) noexcept;
void encrypt_blocks_pair(const Key& k, const uint8_t* in, uint8_t* out, size_t n) noexcept;
void decrypt_blocks_pair(const Key& k, const uint8_t* in, uint8_t* out, size_t n) noexcept;

// The bitsliced S-box and its inverse (with the 0x63 constant applied, i.e. exactly FIPS-197's
// SubBytes and InvSubBytes) on every byte of one batch, in place: 16 * kBatchU64 bytes for the _u64
// forms, 16 * kBatchPair bytes for the _pair forms. They go through the same transposition and the
// same circuits as the rounds, so an exhaustive test of them covers both.
void sub_bytes_u64(uint8_t bytes[kBlockBytes * kBatchU64]) noexcept;
void inv_sub_bytes_u64(uint8_t bytes[kBlockBytes * kBatchU64]) noexcept;
void sub_bytes_pair(uint8_t bytes[kBlockBytes * kBatchPair]) noexcept;
void inv_sub_bytes_pair(uint8_t bytes[kBlockBytes * kBatchPair]) noexcept;
}  // namespace detail

}  // namespace wacore::aes
