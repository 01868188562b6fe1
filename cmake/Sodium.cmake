# libsodium compiled from Debian's source tree as a CMake static library (no autotools).
#
#   wacore_add_sodium(<target> [SIMD])
#
# The same source serves all builds (native, scalar wasm, SIMD wasm), so all of them run the same
# portable C: x86 assembly and intrinsics files compile to empty objects because their HAVE_* macros
# stay undefined. That keeps native test results (and valgrind's constant-time checks) about the code
# that ships in the wasm builds.

set(WACORE_SODIUM_DIR "${PROJECT_SOURCE_DIR}/third_party/libsodium-1.0.18" CACHE PATH
    "libsodium 1.0.18 source tree (fetched by scripts/setup.sh with apt-get source)")
if(NOT EXISTS "${WACORE_SODIUM_DIR}/src/libsodium/include/sodium.h")
  message(FATAL_ERROR "libsodium source not found at ${WACORE_SODIUM_DIR}: run scripts/setup.sh")
endif()

set(_sodium_src "${WACORE_SODIUM_DIR}/src/libsodium")
# Only the files whose objects the core, the bindings and the native tests link: X25519, the Ed25519
# internals and verification, SHA-2, HMAC, base64, memory helpers and randombytes, plus what
# sodium/core.c (sodium_init, sodium_misuse) refers to. The other 76 of the tree's 106 files were
# compiled by every build and never linked. A missing one shows as an undefined reference at link.
set(_sodium_c
  crypto_auth/hmacsha256/auth_hmacsha256.c
  crypto_auth/hmacsha512/auth_hmacsha512.c
  crypto_core/ed25519/ref10/ed25519_ref10.c
  crypto_core/salsa/ref/core_salsa_ref.c
  crypto_generichash/blake2b/ref/blake2b-compress-ref.c
  crypto_generichash/blake2b/ref/blake2b-ref.c
  crypto_generichash/blake2b/ref/generichash_blake2b.c
  crypto_hash/sha256/cp/hash_sha256_cp.c
  crypto_hash/sha512/cp/hash_sha512_cp.c
  crypto_onetimeauth/poly1305/donna/poly1305_donna.c
  crypto_onetimeauth/poly1305/onetimeauth_poly1305.c
  crypto_pwhash/argon2/argon2-core.c
  crypto_pwhash/argon2/argon2-fill-block-ref.c
  crypto_pwhash/argon2/blake2b-long.c
  crypto_scalarmult/curve25519/ref10/x25519_ref10.c
  crypto_scalarmult/curve25519/scalarmult_curve25519.c
  crypto_sign/ed25519/ref10/keypair.c
  crypto_sign/ed25519/ref10/open.c
  crypto_sign/ed25519/ref10/sign.c
  crypto_stream/chacha20/ref/chacha20_ref.c
  crypto_stream/chacha20/stream_chacha20.c
  crypto_stream/salsa20/ref/salsa20_ref.c
  crypto_stream/salsa20/stream_salsa20.c
  crypto_verify/sodium/verify.c
  randombytes/randombytes.c
  randombytes/sysrandom/randombytes_sysrandom.c
  sodium/codecs.c
  sodium/core.c
  sodium/runtime.c
  sodium/utils.c)
list(TRANSFORM _sodium_c PREPEND "${_sodium_src}/")

# The public headers are copied into the build tree because version.h must be generated next to
# export.h (it includes it by relative path), and the source tree stays untouched.
set(_sodium_inc "${CMAKE_BINARY_DIR}/sodium-include")
# The core includes libsodium's private Edwards-curve header, which includes "private/common.h".
set(WACORE_SODIUM_PRIVATE_INCLUDE "${_sodium_inc}/sodium")
if(NOT EXISTS "${_sodium_inc}/sodium/version.h")
  file(COPY "${_sodium_src}/include/" DESTINATION "${_sodium_inc}")
  set(VERSION "1.0.18")
  set(SODIUM_LIBRARY_VERSION_MAJOR 10)
  set(SODIUM_LIBRARY_VERSION_MINOR 3)
  set(SODIUM_LIBRARY_MINIMAL_DEF "")
  configure_file("${_sodium_src}/include/sodium/version.h.in" "${_sodium_inc}/sodium/version.h" @ONLY)
endif()

# What libsodium's configure script decides for Emscripten; all of it also holds for glibc.
# HAVE_TI_MODE stays off on purpose: wasm has no 128-bit multiply, and the native build must run the
# same 25.5-bit field arithmetic the wasm builds do. HAVE_MMAP/MLOCK/MPROTECT stay off: guarded
# allocations are not used by wacore. Code that includes libsodium's private headers (the core's
# curve code) must see the same definitions, so they are kept in one list.
set(WACORE_SODIUM_DEFINES
  CONFIGURED=1 NATIVE_LITTLE_ENDIAN=1 HAVE_ALLOCA_H HAVE_ALLOCA HAVE_POSIX_MEMALIGN HAVE_ATOMIC_OPS
  HAVE_C_VARARRAYS HAVE_SYS_MMAN_H HAVE_SYS_RANDOM_H HAVE_INLINE_ASM HAVE_EXPLICIT_BZERO HAVE_GETPID
  HAVE_NANOSLEEP)

function(wacore_add_sodium target)
  cmake_parse_arguments(ARG "SIMD" "" "" ${ARGN})
  add_library(${target} STATIC ${_sodium_c})
  target_include_directories(${target}
    PUBLIC "${_sodium_inc}"
    PRIVATE "${_sodium_inc}/sodium")
  target_compile_definitions(${target} PUBLIC SODIUM_STATIC=1 PRIVATE ${WACORE_SODIUM_DEFINES})
  # libsodium's own build uses these: signed overflow and type punning appear in its C on purpose.
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE)
  target_compile_options(${target} PRIVATE -fno-strict-aliasing -fno-strict-overflow -w)
  if(ARG_SIMD)
    target_compile_options(${target} PRIVATE -msimd128)
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE OFF C_VISIBILITY_PRESET default)
endfunction()
