// AES-256 encryption of one block at a time, in constant time, on 16-byte vectors: the state is one
// vector of 16 bytes and SubBytes inverts in GF(2^8) seen as GF(16)^2 with nine 16-entry table
// lookups a round by vector permute (wasm i8x16.swizzle); the rounds keep the state in that form.
// No memory is indexed by key or data, and nothing branches on them. The derivation is in
// aes_byteslice.cpp, and a compile-time check holds it equal to the S-box on all 256 bytes.
//
// For CBC encryption, where each block waits for the previous one: the bitsliced rounds (aes.h)
// cost a whole batch of 8 blocks for that one block. The SIMD build encrypts CBC with this instead
// (docs/crypto.md has the figures); other builds keep the bitsliced form, and have the portable
// form below only for tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "crypto/aes.h"

namespace wacore::aes::byteslice {

// The FIPS-197 AES-256 key schedule: 15 round keys of 16 bytes, in the order the rounds use them,
// ready for the rounds: keys 1..13 in the GF(16)^2 form, and the S-box constant folded into keys
// 1..14. POD; wipe with wipe().
struct Key {
  alignas(16) uint8_t rk[kRounds + 1][kBlockBytes];
};

#if defined(__wasm_simd128__)
// The vector form (SIMD build only): key expansion, and CBC encryption of whole blocks with the
// chaining value `chain` (the IV, or the previous ciphertext block; updated). in and out may be the
// same pointer.
void expand_key(Key& k, const uint8_t key[kKeyBytes]) noexcept;
void cbc_encrypt_blocks(const Key& k, uint8_t chain[kBlockBytes], const uint8_t* in, uint8_t* out,
                        size_t nblocks) noexcept;
#endif
void wipe(Key& k) noexcept;

namespace detail {
// The same algorithm on a portable 16-byte type (every build): what the vector form computes, byte
// for byte. Constant time too (each table lookup reads all 16 entries), but slow: for tests.
void expand_key_portable(Key& k, const uint8_t key[kKeyBytes]) noexcept;
void cbc_encrypt_blocks_portable(const Key& k, uint8_t chain[kBlockBytes], const uint8_t* in, uint8_t* out,
                                 size_t nblocks) noexcept;
}  // namespace detail

}  // namespace wacore::aes::byteslice
