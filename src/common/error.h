// One error type for the whole core. Each code has a stable string (the JS `code` property) and a
// short message beside it; messages say what was wrong with the input, never anything secret.
#pragma once

#include <cstdint>

namespace wacore {

// X(name, code string, message)
#define WACORE_ERRORS(X)                                                                          \
  X(ok, "OK", "no error")                                                                         \
  X(key_length, "ERR_KEY_LENGTH", "key has the wrong length")                                     \
  X(key_type, "ERR_KEY_TYPE", "a 33-byte public key must start with the type byte 0x05")          \
  X(signature_length, "ERR_SIGNATURE_LENGTH", "signature must be 64 bytes")                      \
  X(random_length, "ERR_RANDOM_LENGTH", "signature randomness must be 64 bytes")                 \
  X(low_order_point, "ERR_LOW_ORDER_POINT",                                                       \
    "public key is a low-order point: the shared secret would be all zero")                       \
  X(entropy, "ERR_ENTROPY", "the random source failed")                                           \
  X(out_of_memory, "ERR_OUT_OF_MEMORY", "out of memory")

enum class Error : int32_t {
#define WACORE_ERROR_ENUM(name, code, message) name,
  WACORE_ERRORS(WACORE_ERROR_ENUM)
#undef WACORE_ERROR_ENUM
      count_  // not an error: the number of codes above
};

// Stable identifier for `e`, e.g. "ERR_KEY_LENGTH"; "ERR_UNKNOWN" for values out of range.
const char* error_code(Error e) noexcept;
// One-line description of `e` for error messages.
const char* error_message(Error e) noexcept;

}  // namespace wacore
