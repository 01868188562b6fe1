# libFuzzer targets (-DWACORE_FUZZ=ON, with -DWACORE_SANITIZE=ON, clang only), built in the sanitized
# native tree on its core: the same objects the GoogleTest suite runs under ASan + UBSan, compiled
# with the fuzzer's coverage (cmake/Native.cmake), so the core is compiled once for both.
#
#   CC=clang CXX=clang++ cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
#     -DWACORE_SANITIZE=ON -DWACORE_FUZZ=ON
#   cmake --build build/sanitize && build/sanitize/wacore_binary_fuzz CORPUS_DIR
#
# scripts/fuzz.sh does both, on a temporary copy of tests/fuzz/corpus/<target>.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "WACORE_FUZZ needs clang for libFuzzer: configure with CC=clang CXX=clang++")
endif()

set(_fuzz_exe -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)

# The binary node codec (tests/fuzz/binary_fuzz.cpp); the Noise frame decoder and handshake parsers
# (noise_fuzz.cpp); Signal 1:1 sessions (signal_fuzz.cpp): the message and record parsers, and a
# stateful conversation (send, deliver out of order, duplicate, drop, corrupt, snapshot/restore);
# sender-key messages, distribution messages and records, and app-state patch decoding and
# verification (groups_fuzz.cpp); the WAProto codec (proto_fuzz.cpp).
add_executable(wacore_binary_fuzz tests/fuzz/binary_fuzz.cpp)
add_executable(wacore_noise_fuzz tests/fuzz/noise_fuzz.cpp)
add_executable(wacore_signal_parse_fuzz tests/fuzz/signal_fuzz.cpp)
target_compile_definitions(wacore_signal_parse_fuzz PRIVATE SIGNAL_FUZZ_PARSE)
add_executable(wacore_signal_session_fuzz tests/fuzz/signal_fuzz.cpp)
add_executable(wacore_groups_fuzz tests/fuzz/groups_fuzz.cpp)
add_executable(wacore_proto_fuzz tests/fuzz/proto_fuzz.cpp)
foreach(_t wacore_binary_fuzz wacore_noise_fuzz wacore_signal_parse_fuzz wacore_signal_session_fuzz wacore_groups_fuzz wacore_proto_fuzz)
  target_link_libraries(${_t} PRIVATE wacore_native)
  target_compile_options(${_t} PRIVATE ${WACORE_WARNINGS} ${_fuzz_exe})
  target_link_options(${_t} PRIVATE ${_fuzz_exe})
endforeach()
