// AES-256 modes: CTR (SP 800-38A), CBC with PKCS#7 padding, GCM (SP 800-38D). One-shot functions and
// incremental ("streaming") states, so large inputs need not be in memory at once.
//
// Every state is a plain struct with no pointers (safe to copy, e.g. to try an operation on a copy)
// and holds the expanded key; wipe() erases it. Inputs and outputs may be the same buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/error.h"
#include "crypto/aes.h"
#include "crypto/aes_byteslice.h"
#include "crypto/ghash.h"

namespace wacore::aes {

inline constexpr size_t kIvBytes = 16;        // CBC and CTR
inline constexpr size_t kGcmTagBytes = 16;
inline constexpr size_t kGcmNonceBytes = 12;  // the IV length GCM is designed for; others are hashed

// --- CTR --------------------------------------------------------------------------------------------

struct Ctr {
  Key key;
  uint8_t counter[kBlockBytes];    // the next counter block to encrypt
  uint8_t keystream[kBlockBytes];  // the current block's keystream
  uint8_t used;                    // keystream bytes already consumed (kBlockBytes = none left)
  bool inc32;                      // GCM increments only the low 32 bits; plain CTR all 128

  void init(const uint8_t key_bytes[kKeyBytes], const uint8_t iv[kIvBytes], bool increment32 = false) noexcept;
  // XORs the keystream into len bytes; any split of the input gives the same output.
  void update(const uint8_t* in, uint8_t* out, size_t len) noexcept;
  void wipe() noexcept;
};

void ctr(const uint8_t key[kKeyBytes], const uint8_t iv[kIvBytes], const uint8_t* in, uint8_t* out,
         size_t len) noexcept;

// --- CBC with PKCS#7 --------------------------------------------------------------------------------

// Ciphertext length for n bytes of plaintext: padding always adds 1..16 bytes.
constexpr size_t cbc_encrypted_size(size_t n) { return (n / kBlockBytes + 1) * kBlockBytes; }

// out holds cbc_encrypted_size(len) bytes.
void cbc_encrypt(const uint8_t key[kKeyBytes], const uint8_t iv[kIvBytes], const uint8_t* in, size_t len,
                 uint8_t* out) noexcept;
// out holds len bytes; *out_len receives the plaintext length. Errors: data_length (len not a
// positive multiple of 16), bad_padding (checked in constant time; out is wiped).
Error cbc_decrypt(const uint8_t key[kKeyBytes], const uint8_t iv[kIvBytes], const uint8_t* in, size_t len,
                  uint8_t* out, size_t* out_len) noexcept;

struct CbcEncryptor {
#if defined(__wasm_simd128__)
  byteslice::Key key;  // one block at a time on one v128 (aes_byteslice.h)
#else
  Key key;
#endif
  uint8_t chain[kBlockBytes];  // the previous ciphertext block (the IV at first)
  uint8_t pending[kBlockBytes];
  uint8_t pending_len;

  void init(const uint8_t key_bytes[kKeyBytes], const uint8_t iv[kIvBytes]) noexcept;
  // Output bytes update(len) will write: all complete blocks buffered so far.
  size_t update_size(size_t len) const noexcept { return (pending_len + len) / kBlockBytes * kBlockBytes; }
  // Returns the bytes written to out (update_size(len)).
  size_t update(const uint8_t* in, size_t len, uint8_t* out) noexcept;
  // Writes the last, padded block (16 bytes) and wipes the state.
  void final(uint8_t out[kBlockBytes]) noexcept;
  void wipe() noexcept;
};

struct CbcDecryptor {
  Key key;
  uint8_t chain[kBlockBytes];
  uint8_t pending[kBlockBytes];  // the latest ciphertext bytes; the last full block is held back
  uint8_t pending_len;           // 0..16; a full block stays until more input or final()

  void init(const uint8_t key_bytes[kKeyBytes], const uint8_t iv[kIvBytes]) noexcept;
  size_t update_size(size_t len) const noexcept;
  size_t update(const uint8_t* in, size_t len, uint8_t* out) noexcept;
  // Checks the padding of the held-back block in constant time and writes its 0..15 plaintext
  // bytes. Errors as cbc_decrypt. Wipes the state either way.
  Error final(uint8_t out[kBlockBytes], size_t* out_len) noexcept;
  void wipe() noexcept;
};

// --- GCM -------------------------------------------------------------------------------------------

struct Gcm {
  enum Phase : uint8_t { kAad, kData, kDone };

  ghash::State hash;
  Ctr ctr;                        // from inc32(J0); holds the one copy of the expanded key
  uint8_t tag_mask[kBlockBytes];  // AES_K(J0), XORed into the tag
  uint8_t partial[kBlockBytes];   // bytes of the current GHASH block (AAD or ciphertext)
  uint8_t partial_len;
  Phase phase;
  bool encrypting;
  uint64_t aad_len, data_len;

  // iv: 1 or more bytes (12 recommended); errors: iv_length.
  Error init(const uint8_t key_bytes[kKeyBytes], std::span<const uint8_t> iv, bool encrypt) noexcept;
  // Additional data; only before the first update(). Error: stream_state.
  Error aad(std::span<const uint8_t> data) noexcept;
  // Encrypts or decrypts len bytes (out may equal in). Errors: stream_state, data_length (over
  // GCM's 2^36 - 32 byte limit).
  Error update(const uint8_t* in, uint8_t* out, size_t len) noexcept;
  // Encryption: writes the 16-byte tag. Wipes the state.
  Error final_tag(uint8_t tag[kGcmTagBytes]) noexcept;
  // Decryption: compares the tag in constant time. Error: auth_tag. Wipes the state.
  Error final_verify(const uint8_t tag[kGcmTagBytes]) noexcept;
  // Decryption: hashes ciphertext without decrypting it. Run on a copy of the state, then
  // final_verify, to check a tag before producing any plaintext (as gcm_open does).
  Error authenticate_only(const uint8_t* in, size_t len) noexcept;
  void wipe() noexcept;

 private:
  void absorb(const uint8_t* data, size_t len) noexcept;
  void flush_partial() noexcept;
};

// A GCM key made ready once for many messages: the expanded AES key and the hash key
// H = AES_K(0^128). Expanding the key and computing H cost about as much as sealing 100 bytes, so a
// key that seals or opens many short messages (Noise transport frames) keeps one of these. POD, no
// pointers; wipe() erases it.
struct GcmKey {
  Key key;
  uint8_t h[kBlockBytes];

  void init(const uint8_t key_bytes[kKeyBytes]) noexcept;
  void wipe() noexcept;
};

// One-shot GCM. out holds len + 16 bytes (ciphertext then tag). in and out may be the same buffer.
// Errors: iv_length (empty IV), data_length (over GCM's limit).
Error gcm_seal(const GcmKey& key, std::span<const uint8_t> iv, std::span<const uint8_t> aad, const uint8_t* in,
               size_t len, uint8_t* out) noexcept;
// in holds ciphertext then tag (len >= 16); out holds len - 16 bytes (may be in). The tag is checked
// before any plaintext is written: on auth_tag, out is untouched. Errors: iv_length, data_length,
// auth_tag.
Error gcm_open(const GcmKey& key, std::span<const uint8_t> iv, std::span<const uint8_t> aad, const uint8_t* in,
               size_t len, uint8_t* out) noexcept;
// The same with a key used once (expanded per call, then wiped).
Error gcm_seal(const uint8_t key[kKeyBytes], std::span<const uint8_t> iv, std::span<const uint8_t> aad,
               const uint8_t* in, size_t len, uint8_t* out) noexcept;
Error gcm_open(const uint8_t key[kKeyBytes], std::span<const uint8_t> iv, std::span<const uint8_t> aad,
               const uint8_t* in, size_t len, uint8_t* out) noexcept;

}  // namespace wacore::aes
