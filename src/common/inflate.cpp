#include "common/inflate.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace wacore {

namespace {

// zlib's allocations, with their size in front so that each block is zeroed when freed: the window
// and state hold decompressed data. (explicit_bzero: the core's parts that do not link libsodium.)
constexpr size_t kZHeader = 16;  // keeps the blocks 16-byte aligned, as malloc's are
voidpf z_alloc(voidpf, uInt items, uInt size) {
  const size_t n = static_cast<size_t>(items) * size;
  auto* p = static_cast<uint8_t*>(std::malloc(n + kZHeader));
  if (p == nullptr) return Z_NULL;
  std::memcpy(p, &n, sizeof n);
  return p + kZHeader;
}
void z_free(voidpf, voidpf address) {
  if (address == Z_NULL) return;
  uint8_t* p = static_cast<uint8_t*>(address) - kZHeader;
  size_t n = 0;
  std::memcpy(&n, p, sizeof n);
  explicit_bzero(p, n + kZHeader);
  std::free(p);
}

// An inflate stream that is ended however its scope is left (an allocation failing in the output
// unwinds through it).
struct Inflater {
  z_stream z{};
  bool live = false;
  Inflater() {
    z.zalloc = &z_alloc;
    z.zfree = &z_free;
    live = inflateInit(&z) == Z_OK;
  }
  ~Inflater() {
    if (live) inflateEnd(&z);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
};

// Grows out to n bytes (reserving at most limit); a move to new memory zeroes the old.
void grow(std::vector<uint8_t>& out, size_t n, size_t limit) {
  if (n <= out.capacity()) {
    out.resize(n);
    return;
  }
  std::vector<uint8_t> bigger;
  bigger.reserve(std::max(n, std::min(out.capacity() * 2, limit)));
  bigger.assign(out.begin(), out.end());
  bigger.resize(n);
  if (!out.empty()) explicit_bzero(out.data(), out.size());
  out.swap(bigger);
}

}  // namespace

Error inflate_capped(std::span<const uint8_t> in, size_t max, std::vector<uint8_t>& out, Error malformed, Error too_large) {
  if (!out.empty()) explicit_bzero(out.data(), out.size());
  out.clear();
  Inflater inflater;
  if (!inflater.live) return Error::out_of_memory;
  z_stream& z = inflater.z;
  z.next_in = const_cast<Bytef*>(in.data());
  size_t left = in.size();
  int rc = Z_OK;
  // Room for one byte past the cap: a stream that fills it is too large; one that ends at the cap
  // (or is empty, with a cap of 0) is not.
  while (rc == Z_OK) {
    const size_t have = out.size();
    if (have > max) break;
    const size_t room = std::min<size_t>({max + 1 - have, std::max<size_t>(4096, have), size_t{1} << 30});
    grow(out, have + room, max + 1);
    z.next_out = out.data() + have;
    z.avail_out = static_cast<uInt>(room);
    const uInt chunk = static_cast<uInt>(std::min<size_t>(left, size_t{1} << 30));
    const uInt before = chunk;
    z.avail_in = chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    left -= before - z.avail_in;
    out.resize(have + room - z.avail_out);
    // No progress: with the output full, give it more room; otherwise the input ended early.
    if (rc == Z_BUF_ERROR && z.avail_out == 0) rc = Z_OK;
  }
  if (rc == Z_MEM_ERROR) return Error::out_of_memory;
  if (out.size() > max) return too_large;
  if (rc != Z_STREAM_END || z.avail_in != 0 || left != 0) return malformed;
  return Error::ok;
}

}  // namespace wacore
