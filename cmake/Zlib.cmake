# zlib compiled from Debian's source (apt-get source zlib, fetched by scripts/setup.sh) as a static
# library, for inflating compressed binary-node frames. Same source for every build, like libsodium.
#
#   wacore_add_zlib(<target> [SIMD])

set(WACORE_ZLIB_DIR "${PROJECT_SOURCE_DIR}/third_party/zlib-1.2.13.dfsg" CACHE PATH
    "zlib 1.2.13 source tree (fetched by scripts/setup.sh with apt-get source)")
if(NOT EXISTS "${WACORE_ZLIB_DIR}/zlib.h")
  message(FATAL_ERROR "zlib source not found at ${WACORE_ZLIB_DIR}: run scripts/setup.sh")
endif()

# Inflate is what the codec uses; deflate is built too (tests compress frames with it; the linker
# drops it from the wasm builds, which never call it). gz* file I/O is not built.
set(_zlib_sources adler32.c compress.c crc32.c deflate.c inffast.c inflate.c inftrees.c trees.c zutil.c)
list(TRANSFORM _zlib_sources PREPEND "${WACORE_ZLIB_DIR}/")

function(wacore_add_zlib target)
  cmake_parse_arguments(ARG "SIMD" "" "" ${ARGN})
  add_library(${target} STATIC ${_zlib_sources})
  target_include_directories(${target} SYSTEM PUBLIC "${WACORE_ZLIB_DIR}")
  target_compile_options(${target} PRIVATE -w)
  if(ARG_SIMD)
    target_compile_options(${target} PRIVATE -msimd128)
  endif()
endfunction()
