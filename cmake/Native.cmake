# Native build: the core, its GoogleTest suite, and optionally ASan + UBSan (WACORE_SANITIZE), with
# the libFuzzer targets on the same sanitized core (WACORE_FUZZ, clang: cmake/Fuzz.cmake).
option(WACORE_SANITIZE "Build the core and tests with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

wacore_add_sodium(sodium_native)
wacore_add_zlib(zlib_native)
wacore_add_core(wacore_native sodium_native zlib_native)

if(WACORE_SANITIZE)
  # signal_test.cpp instantiates the same RapidJSON templates (whichever copy the linker keeps runs).
  set_property(SOURCE ${WACORE_RAPIDJSON_SOURCES} tests/native/signal_test.cpp APPEND PROPERTY COMPILE_OPTIONS -fno-sanitize=pointer-overflow)
  set(_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  set(_san_core ${_san})
  if(WACORE_FUZZ)
    # Coverage for the fuzzers, in the core and zlib (libsodium is not what is fuzzed). Outside a
    # fuzzer the sanitizer runtime's default coverage callbacks take it, so the GoogleTest suite runs
    # on this same build of the core.
    list(APPEND _san_core -fsanitize=fuzzer-no-link)
    target_compile_options(zlib_native PRIVATE -fsanitize=fuzzer-no-link,address,undefined)
  endif()
  target_compile_options(wacore_native PRIVATE ${_san_core})
  target_link_options(wacore_native INTERFACE ${_san})
elseif(WACORE_FUZZ)
  message(FATAL_ERROR "WACORE_FUZZ needs WACORE_SANITIZE=ON (the fuzzers run on the sanitized core)")
endif()

enable_testing()
find_package(GTest REQUIRED)
find_package(nlohmann_json 3 REQUIRED)

add_executable(wacore_tests
  tests/native/appstate_test.cpp
  tests/native/binary_test.cpp
  tests/native/aes_modes_test.cpp
  tests/native/aes_test.cpp
  tests/native/base64_test.cpp
  tests/native/curve25519_test.cpp
  tests/native/hash_test.cpp
  tests/native/kat_test.cpp
  tests/native/media_test.cpp
  tests/native/signal_test.cpp
  tests/native/sender_keys_test.cpp
  tests/native/patch_test.cpp
  tests/native/proto_test.cpp
  tests/native/noise_test.cpp
  tests/native/error_test.cpp
  tests/native/test_util.cpp)
target_link_libraries(wacore_tests PRIVATE wacore_native GTest::gtest_main nlohmann_json::nlohmann_json)
# The fixed-base multiplication test compares with libsodium's internals: same private header and
# defines as the core.
target_include_directories(wacore_tests SYSTEM PRIVATE "${WACORE_SODIUM_PRIVATE_INCLUDE}")
target_compile_definitions(wacore_tests PRIVATE ${WACORE_SODIUM_DEFINES})
# The test code itself is compiled without optimisation: it is glue around calls into the core (which
# keeps the build type's -O2), and -O0 halves the compile of its GoogleTest-heavy files (signal_test.cpp
# 9.3 s -> 5.0 s), which were most of the native build's time.
target_compile_options(wacore_tests PRIVATE ${WACORE_WARNINGS} -O0)
# Eight test files per compiler run (a unity build): GoogleTest's and the JSON library's headers and
# templates are compiled once per batch, not once per file. Measured rebuilding the test target:
# 64 s per file, 52 s by 4, 36 s by 8, 42 s by 16 (one batch per core no longer). File-local
# helpers must then have names of their own across test files.
set_target_properties(wacore_tests PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
# Known-answer files from Debian's python3-cryptography-vectors (scripts/setup.sh installs it).
find_path(WACORE_CAVP_DIR NAMES ciphers/AES/CBC/CBCMMT256.rsp
          PATHS /usr/lib/python3/dist-packages/cryptography_vectors
          DOC "NIST CAVP and RFC test vectors (Debian: python3-cryptography-vectors)" NO_DEFAULT_PATH)
if(NOT WACORE_CAVP_DIR)
  message(FATAL_ERROR "python3-cryptography-vectors is not installed (scripts/setup.sh installs it), "
                      "or pass -DWACORE_CAVP_DIR=<folder holding ciphers/AES/CBC/CBCMMT256.rsp>")
endif()
if(IS_DIRECTORY "${WACORE_WYCHEPROOF_DIR}")
  message(STATUS "Wycheproof vectors: ${WACORE_WYCHEPROOF_DIR} (their tests run)")
else()
  message(STATUS "Wycheproof vectors: not found at ${WACORE_WYCHEPROOF_DIR} (their tests are skipped)")
endif()
target_compile_definitions(wacore_tests PRIVATE
  WACORE_WYCHEPROOF_DIR="${WACORE_WYCHEPROOF_DIR}" WACORE_CAVP_DIR="${WACORE_CAVP_DIR}")
if(WACORE_SANITIZE)
  target_compile_options(wacore_tests PRIVATE ${_san})
endif()

include(GoogleTest)
gtest_discover_tests(wacore_tests DISCOVERY_TIMEOUT 60)

# Constant time: secrets are marked undefined for valgrind's memcheck (src/common/ct.h) and the check
# runs under valgrind; any branch or index on a secret fails the test. The control run is a deliberate
# leak that valgrind must report, so the check itself is known to work. The hooks are valgrind client
# requests, which do nothing outside valgrind, so the plain native build compiles them in and the
# GoogleTest suite and the check share one build of the core (the wasm builds never have them). Not
# under the sanitizers (valgrind and ASan do not mix).
find_program(VALGRIND valgrind)
if(VALGRIND AND NOT WACORE_SANITIZE)
  target_compile_definitions(wacore_native PUBLIC WACORE_CT_TEST)
  add_executable(wacore_ct_test tests/native/ct_test.cpp)
  target_link_libraries(wacore_ct_test PRIVATE wacore_native)
  target_compile_options(wacore_ct_test PRIVATE ${WACORE_WARNINGS})
  # Its check of the field inversion (crypto/fe_invert.h) takes libsodium's field type: the core's header and defines.
  target_include_directories(wacore_ct_test SYSTEM PRIVATE "${WACORE_SODIUM_PRIVATE_INCLUDE}")
  target_compile_definitions(wacore_ct_test PRIVATE ${WACORE_SODIUM_DEFINES})
  set(_vg ${VALGRIND} --quiet --error-exitcode=99 --exit-on-first-error=no)
  add_test(NAME constant_time COMMAND ${_vg} $<TARGET_FILE:wacore_ct_test>)
  add_test(NAME constant_time_control_is_caught COMMAND ${_vg} $<TARGET_FILE:wacore_ct_test> --control)
  set_tests_properties(constant_time_control_is_caught PROPERTIES WILL_FAIL TRUE)
endif()
