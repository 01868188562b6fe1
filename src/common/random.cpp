#include "common/random.h"

#include <sodium.h>

namespace wacore {
namespace {

int sodium_source(uint8_t* buf, size_t n) {
  randombytes_buf(buf, n);
  return 0;
}

RandomSource g_source = &sodium_source;

}  // namespace

void set_random_source(RandomSource source) noexcept {
  g_source = source != nullptr ? source : &sodium_source;
}

Error random_bytes(uint8_t* buf, size_t n) noexcept {
  if (n == 0) return Error::ok;
  if (g_source(buf, n) != 0) {
    sodium_memzero(buf, n);
    return Error::entropy;
  }
  return Error::ok;
}

}  // namespace wacore
