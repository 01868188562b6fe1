// Helpers shared by the native tests.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace wacore::test {

using Bytes = std::vector<uint8_t>;

Bytes from_hex(std::string_view hex);
std::string to_hex(const uint8_t* p, size_t n);
inline std::string to_hex(const Bytes& b) { return to_hex(b.data(), b.size()); }

// Parses ../shared/vectors/<relative_path> (the folder CMake passes as WACORE_VECTORS_DIR).
nlohmann::json load_vectors(const std::string& relative_path);

}  // namespace wacore::test
