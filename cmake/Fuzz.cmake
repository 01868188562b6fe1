# Fuzz build (-DWACORE_FUZZ=ON, clang only): a libFuzzer target for the binary node codec, with
# AddressSanitizer and UndefinedBehaviorSanitizer. It takes the place of Native.cmake in its own build
# directory, so nothing else is configured or built there (no GoogleTest suite, no valgrind check,
# no libsodium for the codec target: it needs only zlib and the error table; the Noise target below
# adds libsodium).
#
#   CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DWACORE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
#   cmake --build build/fuzz && build/fuzz/wacore_binary_fuzz CORPUS_DIR
#
# scripts/fuzz.sh does both, on a temporary copy of tests/fuzz/corpus/binary.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "WACORE_FUZZ needs clang for libFuzzer: configure with CC=clang CXX=clang++")
endif()

# Libraries get the fuzzer's coverage instrumentation without its main(); the target links libFuzzer.
set(_fuzz_common address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
set(_fuzz_lib -fsanitize=fuzzer-no-link,${_fuzz_common})
set(_fuzz_exe -fsanitize=fuzzer,${_fuzz_common})

set_property(SOURCE ${WACORE_RAPIDJSON_SOURCES} APPEND PROPERTY COMPILE_OPTIONS -fno-sanitize=pointer-overflow)
wacore_add_zlib(zlib_fuzz)
target_compile_options(zlib_fuzz PRIVATE ${_fuzz_lib})

# The part of WACORE_SOURCES the codec uses.
add_library(wacore_binary_fuzz_core STATIC src/binary/codec.cpp src/common/error.cpp)
add_dependencies(wacore_binary_fuzz_core wacore_tokens)
target_include_directories(wacore_binary_fuzz_core PUBLIC "${PROJECT_SOURCE_DIR}/src" PRIVATE "${WACORE_GENERATED_DIR}")
target_link_libraries(wacore_binary_fuzz_core PUBLIC zlib_fuzz)
target_compile_options(wacore_binary_fuzz_core PRIVATE ${WACORE_WARNINGS} ${_fuzz_lib})

add_executable(wacore_binary_fuzz tests/fuzz/binary_fuzz.cpp)
target_link_libraries(wacore_binary_fuzz PRIVATE wacore_binary_fuzz_core)
target_compile_options(wacore_binary_fuzz PRIVATE ${WACORE_WARNINGS} ${_fuzz_exe})
target_link_options(wacore_binary_fuzz PRIVATE ${_fuzz_exe})

# The Noise frame decoder and handshake parsers (tests/fuzz/noise_fuzz.cpp): the whole core, with
# libsodium (not instrumented: it is not what is being fuzzed) for X25519, XEdDSA and SHA-2.
wacore_add_sodium(sodium_fuzz)
add_library(wacore_noise_fuzz_core STATIC ${WACORE_SOURCES})
add_dependencies(wacore_noise_fuzz_core wacore_tokens)
target_include_directories(wacore_noise_fuzz_core PUBLIC "${PROJECT_SOURCE_DIR}/src" PRIVATE "${WACORE_GENERATED_DIR}")
target_include_directories(wacore_noise_fuzz_core SYSTEM PRIVATE "${WACORE_SODIUM_PRIVATE_INCLUDE}" "${WACORE_HEADERS_DIR}")
target_compile_definitions(wacore_noise_fuzz_core PRIVATE ${WACORE_SODIUM_DEFINES})
target_link_libraries(wacore_noise_fuzz_core PUBLIC sodium_fuzz zlib_fuzz)
target_compile_options(wacore_noise_fuzz_core PRIVATE ${WACORE_WARNINGS} ${_fuzz_lib})

add_executable(wacore_noise_fuzz tests/fuzz/noise_fuzz.cpp)
target_link_libraries(wacore_noise_fuzz PRIVATE wacore_noise_fuzz_core)
target_compile_options(wacore_noise_fuzz PRIVATE ${WACORE_WARNINGS} ${_fuzz_exe})
target_link_options(wacore_noise_fuzz PRIVATE ${_fuzz_exe})

# Signal 1:1 sessions (tests/fuzz/signal_fuzz.cpp): the message and record parsers, and a stateful
# conversation (send, deliver out of order, duplicate, drop, corrupt, snapshot/restore).
add_executable(wacore_signal_parse_fuzz tests/fuzz/signal_fuzz.cpp)
target_compile_definitions(wacore_signal_parse_fuzz PRIVATE SIGNAL_FUZZ_PARSE)
add_executable(wacore_signal_session_fuzz tests/fuzz/signal_fuzz.cpp)
foreach(_t wacore_signal_parse_fuzz wacore_signal_session_fuzz)
  target_link_libraries(${_t} PRIVATE wacore_noise_fuzz_core)
  target_compile_options(${_t} PRIVATE ${WACORE_WARNINGS} ${_fuzz_exe})
  target_link_options(${_t} PRIVATE ${_fuzz_exe})
endforeach()

# Sender-key messages, distribution messages and records, and app-state patch decoding and
# verification (tests/fuzz/groups_fuzz.cpp), on the same instrumented core as the Noise target.
add_executable(wacore_groups_fuzz tests/fuzz/groups_fuzz.cpp)
target_link_libraries(wacore_groups_fuzz PRIVATE wacore_noise_fuzz_core)
target_compile_options(wacore_groups_fuzz PRIVATE ${WACORE_WARNINGS} ${_fuzz_exe})
target_link_options(wacore_groups_fuzz PRIVATE ${_fuzz_exe})
