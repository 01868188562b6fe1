# wasm build: libsodium, the core and the embind bindings, twice — once plain (scalar) and once with
# -msimd128 — into npm/dist/wacore.{scalar,simd}.{mjs,wasm}.

include(cmake/WasmDirectCompile.cmake)

set(WACORE_DIST_DIR "${PROJECT_SOURCE_DIR}/npm/dist" CACHE PATH "Where the wasm builds are written")

# Link flags, by purpose.
set(WACORE_LINK_SHAPE
  # An ES module exporting a factory; the loader in npm/ decides where the .wasm bytes come from.
  -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createWacoreModule
  # No `node` environment: Emscripten 3.1.6 emits __dirname for it, which breaks Node ES modules.
  # The loader reads the file itself in Node and passes the bytes through instantiateWasm.
  -sENVIRONMENT=web,worker
  # Only the options our loader passes; everything else is stripped from the glue. getRandomValue
  # backs libsodium's Emscripten randombytes, which nothing calls (no sodium_init, and the core
  # draws from the batched source in bindings/); it is passed so that such a call would still get
  # secure bytes.
  "-sINCOMING_MODULE_JS_API=[instantiateWasm,onAbort,print,printErr,getRandomValue]"
  --bind)
set(WACORE_LINK_MEMORY
  # Inputs of any size must fit, so memory may grow; it never shrinks, so the bindings reuse one
  # I/O buffer instead of allocating per call (see bindings/).
  -sALLOW_MEMORY_GROWTH=1
  # malloc returns null when memory cannot grow, instead of aborting the instance: every caller
  # turns that into ERR_OUT_OF_MEMORY.
  -sABORTING_MALLOC=0
  # emmalloc is 8 KB (3 KB gzip) smaller than dlmalloc; the core allocates rarely (the I/O buffer).
  -sMALLOC=emmalloc
  # Stack use is small (the deepest path is XEdDSA verify, a few KB); 5 MB is Emscripten's default.
  -sTOTAL_STACK=262144
  -sINITIAL_MEMORY=1048576)
set(WACORE_LINK_SIZE
  # No filesystem, no eval-based code generation (CSP-safe), TextDecoder always present.
  -sFILESYSTEM=0 -sDYNAMIC_EXECUTION=0 -sTEXTDECODER=2)

# Codegen and link options that the flag study (bench/experiments/flags.mjs, docs/build-flags.md) varies without
# editing files. The defaults are what ships: -O3, because -O2 costs 9-10% on signing and key
# generation (scalar build) and -Os/-Oz 3.7-7.6x on AES-CBC and 2.9x on SHA-256 for 14-16% less
# size; no -flto, post-link wasm-opt, closure or tail calls yet (docs/build-flags.md has the
# figures). The extra flags are space-separated and reach libsodium, zlib, the core and the link
# alike; the compile flags are passed to the link too, so that emcc enables the same wasm features
# in its own wasm-opt run.
set(WACORE_OPT -O3 CACHE STRING "Optimisation level of compile and link (-O3 ships; see docs/build-flags.md)")
set(WACORE_EXTRA_COMPILE_FLAGS "" CACHE STRING "Extra compile flags for every wasm source, e.g. -mtail-call")
set(WACORE_EXTRA_LINK_FLAGS "" CACHE STRING "Extra link flags, e.g. -sMALLOC=dlmalloc or --closure=1")
set(WACORE_WASM_OPT "" CACHE STRING "wasm-opt passes run on the linked .wasm after emcc, e.g. -O3 (empty: none)")
separate_arguments(_extra_compile UNIX_COMMAND "${WACORE_EXTRA_COMPILE_FLAGS}")
separate_arguments(_extra_link UNIX_COMMAND "${WACORE_EXTRA_LINK_FLAGS}")
separate_arguments(_wasm_opt_passes UNIX_COMMAND "${WACORE_WASM_OPT}")
# C++ is compiled with native wasm exceptions (try/catch instructions, no JS glue): an allocation
# that fails anywhere in the core throws std::bad_alloc, which unwinds to the export that was called
# (bindings/guard.h), running every destructor on the way, and comes out as ERR_OUT_OF_MEMORY. Calls
# to C functions (libsodium, zlib, libc) are taken not to unwind (-fexternc-nounwind), so code that
# only calls them needs no unwinding tables. C is compiled without exceptions.
add_compile_options(${WACORE_OPT} ${_extra_compile}
  "$<$<COMPILE_LANGUAGE:CXX>:-fexceptions;-fwasm-exceptions;SHELL:-Xclang -fexternc-nounwind>"
  "$<$<COMPILE_LANGUAGE:C>:-fno-exceptions>")
# Session logic, record formats, certificate parsing and their glue run once per message around the crypto, which stays
# at -O3 (libsodium, AES, hashing): -Os there saves size at no measurable cost (docs/build.md).
set(WACORE_SIZE_SOURCES src/signal/session.cpp src/signal/proto.cpp src/signal/proto_write.cpp
    src/signal/record_json.cpp bindings/signal_bindings.cpp src/noise/proto.cpp src/noise/noise.cpp
    bindings/noise_bindings.cpp
    # Sender keys, app-state patch decoding and verification, and their glue (docs/groups.md). The
    # app-state glue also holds the plain LTHash, MAC and value exports: thin wrappers over
    # src/appstate/appstate.cpp, which stays at -O3 (the gate's lthash-812 count is the same).
    src/signal/sender_keys.cpp src/signal/sender_keys_proto.cpp src/signal/sender_keys_write.cpp
    src/signal/sender_keys_json.cpp src/appstate/patch.cpp src/appstate/patch_proto.cpp
    bindings/group_bindings.cpp bindings/appstate_bindings.cpp bindings/generated/exports.cpp bindings/wire.cpp)
set_property(SOURCE ${WACORE_SIZE_SOURCES} APPEND PROPERTY COMPILE_OPTIONS -Oz)

# The bindings: the module runtime and one file per family (docs/architecture.md), plus the generated
# layout exports and their runtime.
set(WACORE_BINDING_SOURCES bindings/module.cpp bindings/curve_bindings.cpp bindings/crypto_bindings.cpp
    bindings/binary_bindings.cpp bindings/media_bindings.cpp bindings/appstate_bindings.cpp
    bindings/signal_bindings.cpp bindings/group_bindings.cpp bindings/noise_bindings.cpp bindings/proto_bindings.cpp
    bindings/wipe_on_free.cpp bindings/generated/exports.cpp bindings/wire.cpp)

foreach(variant scalar simd)
  set(_simd "")
  if(variant STREQUAL "simd")
    set(_simd SIMD)
  endif()
  wacore_add_sodium(sodium_${variant} ${_simd})
  wacore_add_zlib(zlib_${variant} ${_simd})
  # Inflate runs only on frames the server sent compressed, which are rare: its code is kept small
  # (docs/build-flags.md has what it saves).
  target_compile_options(zlib_${variant} PRIVATE -Oz)
  wacore_add_core(wacore_core_${variant} sodium_${variant} zlib_${variant} ${_simd})

  add_executable(wacore_${variant} ${WACORE_BINDING_SOURCES})
  target_link_libraries(wacore_${variant} PRIVATE wacore_core_${variant})
  target_compile_options(wacore_${variant} PRIVATE ${WACORE_WARNINGS})
  target_compile_definitions(wacore_${variant} PRIVATE WACORE_VARIANT="${variant}")
  if(_simd)
    target_compile_options(wacore_${variant} PRIVATE -msimd128)
    target_link_options(wacore_${variant} PRIVATE -msimd128)
  endif()
  target_link_options(wacore_${variant} PRIVATE
    ${WACORE_OPT} ${_extra_compile} -fwasm-exceptions ${WACORE_LINK_SHAPE} ${WACORE_LINK_MEMORY} ${WACORE_LINK_SIZE}
    ${_extra_link})
  set_target_properties(wacore_${variant} PROPERTIES
    OUTPUT_NAME "wacore.${variant}" SUFFIX ".mjs"
    RUNTIME_OUTPUT_DIRECTORY "${WACORE_DIST_DIR}")
  if(_wasm_opt_passes)
    # The final module carries no target-features section, so wasm-opt is told exactly the features
    # the module uses: it may then emit no instruction from a feature the engine was not asked for.
    set(_features --mvp-features --enable-exception-handling)
    if(_simd)
      list(APPEND _features --enable-simd)
    endif()
    foreach(_flag IN LISTS _extra_compile)
      if(_flag MATCHES "^-m(bulk-memory|sign-ext|tail-call)$")
        list(APPEND _features --enable-${CMAKE_MATCH_1})
      elseif(_flag STREQUAL "-mnontrapping-fptoint")
        list(APPEND _features --enable-nontrapping-float-to-int)
      endif()
    endforeach()
    set(_wasm "${WACORE_DIST_DIR}/wacore.${variant}.wasm")
    add_custom_command(TARGET wacore_${variant} POST_BUILD
      COMMAND wasm-opt ${_features} ${_wasm_opt_passes} "${_wasm}" -o "${_wasm}"
      COMMENT "wasm-opt ${WACORE_WASM_OPT} on wacore.${variant}.wasm" VERBATIM)
  endif()
endforeach()

# One glue for both builds (scripts/glue.mjs checks that they are the same but for the file name):
# the loader bundles it, so either .wasm can be instantiated without importing anything else.
add_custom_command(
  OUTPUT "${WACORE_DIST_DIR}/wacore.glue.mjs"
  COMMAND ${NODE_EXECUTABLE} "${PROJECT_SOURCE_DIR}/scripts/glue.mjs" "${WACORE_DIST_DIR}"
  DEPENDS wacore_scalar wacore_simd "${PROJECT_SOURCE_DIR}/scripts/glue.mjs"
  COMMENT "Writing the shared glue, wacore.glue.mjs")
add_custom_target(wacore_glue ALL DEPENDS "${WACORE_DIST_DIR}/wacore.glue.mjs")

# The SIMD build must really contain v128 instructions, and the scalar build none.
enable_testing()
add_test(NAME simd_build_has_v128
  COMMAND sh "${PROJECT_SOURCE_DIR}/scripts/count-simd.sh" "${WACORE_DIST_DIR}/wacore.simd.wasm" --expect-some)
add_test(NAME scalar_build_has_no_v128
  COMMAND sh "${PROJECT_SOURCE_DIR}/scripts/count-simd.sh" "${WACORE_DIST_DIR}/wacore.scalar.wasm" --expect-none)
