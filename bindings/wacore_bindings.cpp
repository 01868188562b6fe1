// embind glue: marshalling only. Every function takes offsets into the module's one I/O buffer (the
// JS side copies inputs in, calls, and copies outputs out), plus lengths, and returns an error code
// (0 = ok, otherwise a wacore::Error value the JS side turns into a WacoreError). No logic lives here.
#include <emscripten.h>
#include <emscripten/bind.h>
#include <malloc.h>
#include <sodium.h>

#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "common/error.h"
#include "common/random.h"
#include "crypto/curve25519.h"
#include "signal/registration.h"

namespace {

using wacore::Error;

// Fills [p, p + n) from crypto.getRandomValues in as few JS calls as its 65,536-byte cap allows.
// Returns 0, or -1 if no secure source exists (the loader checks for one before instantiating).
// clang-format off
EM_JS(int, wacore_js_fill_random, (uint8_t * p, size_t n), {
  try {
    p >>>= 0;
    for (var off = 0; off < n; off += 65536) {
      crypto.getRandomValues(HEAPU8.subarray(p + off, p + off + Math.min(n - off, 65536)));
    }
    return 0;
  } catch (e) {
    return -1;
  }
});
// clang-format on

int js_random(uint8_t* buf, size_t n) { return wacore_js_fill_random(buf, n); }

// libsodium's own randombytes must never be reached through its Emscripten default (one JS call
// per byte, and none at all in Node ES modules): it is pointed at the same batched source.
void sodium_random_buf(void* const buf, const size_t n) {
  if (js_random(static_cast<uint8_t*>(buf), n) != 0) sodium_memzero(buf, n);
}
uint32_t sodium_random_u32() {
  uint32_t v = 0;
  sodium_random_buf(&v, sizeof v);
  return v;
}
const char* sodium_random_name() { return "wacore-js"; }
randombytes_implementation g_sodium_random = {
    &sodium_random_name, &sodium_random_u32, nullptr, nullptr, &sodium_random_buf, nullptr};

// The I/O buffer: grows to the largest request seen and is then reused, so steady-state calls never
// allocate. The JS side wipes the part that held secrets after each call.
uint8_t* g_io = nullptr;
size_t g_io_size = 0;

// Returns the buffer's address once it holds at least n bytes, or 0 if memory cannot grow.
uintptr_t io_buffer(size_t n) {
  if (n > g_io_size) {
    size_t want = n < 4096 ? 4096 : n + n / 2;
    auto* p = static_cast<uint8_t*>(std::malloc(want));
    if (p == nullptr) return 0;
    if (g_io != nullptr) {
      sodium_memzero(g_io, g_io_size);
      std::free(g_io);
    }
    g_io = p;
    g_io_size = want;
  }
  return reinterpret_cast<uintptr_t>(g_io);
}

template <typename T = uint8_t>
T* at(uintptr_t p) {
  return reinterpret_cast<T*>(p);
}
std::span<const uint8_t> bytes(uintptr_t p, size_t n) { return {at(p), n}; }
int rc(Error e) { return static_cast<int>(e); }

int init() {
  wacore::set_random_source(&js_random, /*pooled=*/true);
  randombytes_set_implementation(&g_sodium_random);
  return sodium_init() < 0 ? rc(Error::entropy) : 0;
}

std::string error_code(int e) { return wacore::error_code(static_cast<Error>(e)); }
std::string error_message(int e) { return wacore::error_message(static_cast<Error>(e)); }
int error_count() { return static_cast<int>(Error::count_); }

// Bytes currently allocated by malloc (for the memory-stability tests).
size_t heap_in_use() { return mallinfo().uordblks; }

// --- curve ---------------------------------------------------------------------------------------

// out: private key (32) then public u (32).
int curve_generate_key_pair(uintptr_t out) {
  return rc(wacore::curve::generate_key_pair(at(out), at(out + 32)));
}

int curve_public_from_private(uintptr_t priv, size_t priv_len, uintptr_t out) {
  if (priv_len != wacore::curve::kPrivateKeyBytes) return rc(Error::key_length);
  return rc(wacore::curve::public_from_private(at(priv), at(out)));
}

int curve_agreement(uintptr_t pub, size_t pub_len, uintptr_t priv, size_t priv_len, uintptr_t out) {
  uint8_t u[wacore::curve::kKeyBytes];
  if (Error e = wacore::curve::parse_public_key(bytes(pub, pub_len), u); e != Error::ok) return rc(e);
  if (priv_len != wacore::curve::kPrivateKeyBytes) return rc(Error::key_length);
  return rc(wacore::curve::agreement(u, at(priv), at(out)));
}

int curve_sign(uintptr_t priv, size_t priv_len, uintptr_t msg, size_t msg_len, uintptr_t out) {
  if (priv_len != wacore::curve::kPrivateKeyBytes) return rc(Error::key_length);
  return rc(wacore::curve::sign(at(priv), bytes(msg, msg_len), at(out)));
}

int curve_sign_with_random(uintptr_t priv, size_t priv_len, uintptr_t msg, size_t msg_len,
                           uintptr_t random, size_t random_len, uintptr_t out) {
  if (priv_len != wacore::curve::kPrivateKeyBytes) return rc(Error::key_length);
  if (random_len != wacore::curve::kSignatureRandomBytes) return rc(Error::random_length);
  wacore::curve::sign_with_random(at(priv), bytes(msg, msg_len), at(random), at(out));
  return 0;
}

// Returns 1 for a valid signature, 0 for an invalid one, or -(error code) for bad input.
int curve_verify(uintptr_t pub, size_t pub_len, uintptr_t msg, size_t msg_len, uintptr_t sig,
                 size_t sig_len) {
  uint8_t u[wacore::curve::kKeyBytes];
  if (Error e = wacore::curve::parse_public_key(bytes(pub, pub_len), u); e != Error::ok) return -rc(e);
  if (sig_len != wacore::curve::kSignatureBytes) return -rc(Error::signature_length);
  return wacore::curve::verify(u, bytes(msg, msg_len), at(sig)) ? 1 : 0;
}

// Returns the ID (0..16383), or -(error code).
int registration_id() {
  uint32_t id = 0;
  if (Error e = wacore::signal::generate_registration_id(id); e != Error::ok) return -rc(e);
  return static_cast<int>(id);
}

}  // namespace

EMSCRIPTEN_BINDINGS(wacore) {
  using emscripten::function;
  emscripten::constant("variant", std::string(WACORE_VARIANT));
  function("init", &init);
  function("ioBuffer", &io_buffer);
  function("heapInUse", &heap_in_use);
  function("errorCode", &error_code);
  function("errorMessage", &error_message);
  function("errorCount", &error_count);
  function("curveGenerateKeyPair", &curve_generate_key_pair);
  function("curvePublicFromPrivate", &curve_public_from_private);
  function("curveAgreement", &curve_agreement);
  function("curveSign", &curve_sign);
  function("curveSignWithRandom", &curve_sign_with_random);
  function("curveVerify", &curve_verify);
  function("registrationId", &registration_id);
}
