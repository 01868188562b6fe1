#include "common/random.h"

#include <sodium.h>

#include <cstring>

namespace wacore {
namespace {

int sodium_source(uint8_t* buf, size_t n) noexcept {
  randombytes_buf(buf, n);
  return 0;
}

RandomSource g_source = &sodium_source;
bool g_pooled = false;
uint8_t g_pool[kRandomPoolBytes];
size_t g_pool_pos = kRandomPoolBytes;  // next unused byte; == size means empty

}  // namespace

void set_random_source(RandomSource source, bool pooled) noexcept {
  g_source = source != nullptr ? source : &sodium_source;
  g_pooled = pooled;
  sodium_memzero(g_pool, sizeof g_pool);
  g_pool_pos = kRandomPoolBytes;
}

Error random_bytes(uint8_t* buf, size_t n) noexcept {
  if (n == 0) return Error::ok;
  if (g_pooled && n <= kRandomPoolMaxDraw) {
    if (kRandomPoolBytes - g_pool_pos < n) {
      if (g_source(g_pool, kRandomPoolBytes) != 0) {
        sodium_memzero(g_pool, sizeof g_pool);
        g_pool_pos = kRandomPoolBytes;
        sodium_memzero(buf, n);
        return Error::entropy;
      }
      g_pool_pos = 0;
    }
    std::memcpy(buf, g_pool + g_pool_pos, n);
    sodium_memzero(g_pool + g_pool_pos, n);  // handed-out bytes never stay behind
    g_pool_pos += n;
    return Error::ok;
  }
  if (g_source(buf, n) != 0) {
    sodium_memzero(buf, n);
    return Error::entropy;
  }
  return Error::ok;
}

}  // namespace wacore
