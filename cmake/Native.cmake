# Native build: the core, its GoogleTest suite, and optionally ASan + UBSan.
option(WACORE_SANITIZE "Build the core and tests with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

wacore_add_sodium(sodium_native)
wacore_add_core(wacore_native sodium_native)

if(WACORE_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_compile_options(wacore_native PRIVATE ${_san})
  target_link_options(wacore_native INTERFACE ${_san})
endif()

enable_testing()
find_package(GTest REQUIRED)
find_package(nlohmann_json 3 REQUIRED)

add_executable(wacore_tests
  tests/native/curve25519_test.cpp
  tests/native/error_test.cpp
  tests/native/test_util.cpp)
target_link_libraries(wacore_tests PRIVATE wacore_native GTest::gtest_main nlohmann_json::nlohmann_json)
target_compile_options(wacore_tests PRIVATE ${WACORE_WARNINGS})
target_compile_definitions(wacore_tests PRIVATE
  WACORE_VECTORS_DIR="${WACORE_SHARED_DIR}/vectors")
if(WACORE_SANITIZE)
  target_compile_options(wacore_tests PRIVATE ${_san})
endif()

include(GoogleTest)
gtest_discover_tests(wacore_tests DISCOVERY_TIMEOUT 60)
