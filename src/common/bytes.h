// Byte helpers for calls whose inputs may be empty.
//
// An empty std::span or std::vector may have data() == nullptr. memcpy with a null pointer is
// undefined even for 0 bytes, and libsodium declares its pointer parameters nonnull: UBSan reports
// both. These helpers keep empty inputs well defined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace wacore {

// data() of s, or the address of a static byte when s is empty: never null.
inline const uint8_t* nonnull(std::span<const uint8_t> s) noexcept {
  static const uint8_t kEmpty = 0;
  return s.data() != nullptr ? s.data() : &kEmpty;
}

// memcpy that accepts n == 0 with null pointers.
inline void copy_bytes(void* dst, const void* src, size_t n) noexcept {
  if (n != 0) std::memcpy(dst, src, n);
}

}  // namespace wacore
