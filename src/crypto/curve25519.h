// Curve25519 as Signal uses it: X25519 key agreement and XEdDSA signatures over X25519 keys.
//
// Built on libsodium's X25519 and its Edwards-curve internals, with one piece of our own: the
// fixed-base multiplication (ed25519_base.h), whose table is made at first use instead of shipped.
// Key formats follow libsignal: private keys are 32 bytes (clamped when generated or derived),
// public keys travel as 33 bytes (0x05 type byte + the X25519 u-coordinate) and 32-byte keys are
// accepted too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/error.h"

namespace wacore::curve {

inline constexpr size_t kPrivateKeyBytes = 32;
inline constexpr size_t kKeyBytes = 32;            // X25519 u-coordinate
inline constexpr size_t kPublicKeyBytes = 33;      // kDjbType + u
inline constexpr size_t kSharedSecretBytes = 32;
inline constexpr size_t kSignatureBytes = 64;
inline constexpr size_t kSignatureRandomBytes = 64;  // XEdDSA's Z
inline constexpr uint8_t kDjbType = 0x05;          // libsignal's key-type byte for Curve25519

// Accepts a 33-byte key starting with kDjbType or a bare 32-byte key; writes the 32-byte u.
Error parse_public_key(std::span<const uint8_t> in, uint8_t out[kKeyBytes]) noexcept;

// Clears bits 0-2 and 255 and sets bit 254 of a private scalar (RFC 7748 clamping).
void clamp(uint8_t key[kPrivateKeyBytes]) noexcept;

// A fresh clamped private key and its 32-byte public u-coordinate.
Error generate_key_pair(uint8_t private_key[kPrivateKeyBytes], uint8_t public_key[kKeyBytes]) noexcept;

// The X25519 public key of `private_key` (clamped first, as X25519 always does).
Error public_from_private(const uint8_t private_key[kPrivateKeyBytes],
                          uint8_t public_key[kKeyBytes]) noexcept;

// X25519(private_key, public_key). Policy: every public key is accepted as RFC 7748 says (bit 255
// ignored, non-canonical u reduced) except those whose shared secret is all zero, i.e. the
// low-order points; for them it returns Error::low_order_point and zeroes `shared`. libsodium,
// OpenSSL (node:crypto, which libsignal-node uses) and Wycheproof's "acceptable" cases agree.
Error agreement(const uint8_t public_key[kKeyBytes], const uint8_t private_key[kPrivateKeyBytes],
                uint8_t shared[kSharedSecretBytes]) noexcept;

// XEdDSA signature with explicit 64-byte randomness Z, in libsignal's form: the nonce is
// SHA-512(0xFE 0xFF*31 || clamp(k) || message || Z), the scalar is never negated, and the sign bit of
// the Edwards public key travels in bit 7 of byte 63. Deterministic for fixed inputs (for tests).
void sign_with_random(const uint8_t private_key[kPrivateKeyBytes], std::span<const uint8_t> message,
                      const uint8_t random[kSignatureRandomBytes],
                      uint8_t signature[kSignatureBytes]) noexcept;

// XEdDSA signature with fresh randomness from wacore::random_bytes.
Error sign(const uint8_t private_key[kPrivateKeyBytes], std::span<const uint8_t> message,
           uint8_t signature[kSignatureBytes]) noexcept;

// Verifies an XEdDSA signature as libsignal does: the public key is mapped to Edwards form with the
// sign bit taken from the signature; S is rejected when S >= 2^253 and otherwise reduced mod L.
// Accepts signatures made by libsignal, libsignal-node (curve25519-js) and libsignal-protocol-c.
// Runs in variable time: every input is public.
bool verify(const uint8_t public_key[kKeyBytes], std::span<const uint8_t> message,
            const uint8_t signature[kSignatureBytes]) noexcept;

}  // namespace wacore::curve
