// Helpers shared by the native tests.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wacore::test {

using Bytes = std::vector<uint8_t>;

Bytes from_hex(std::string_view hex);
std::string to_hex(const uint8_t* p, size_t n);
inline std::string to_hex(const Bytes& b) { return to_hex(b.data(), b.size()); }

// Wycheproof is an extra, optional source of vectors: the folder is $WACORE_WYCHEPROOF_DIR when set,
// else the one CMake was given (WACORE_WYCHEPROOF_DIR, default ../shared/vectors/wycheproof beside
// the repository). Returns the parsed file, or nullopt when the folder is absent.
std::optional<nlohmann::json> wycheproof(const std::string& file);
std::string wycheproof_dir();

// Skips the current test, saying so, when the Wycheproof folder is absent.
#define WACORE_WYCHEPROOF_OR_SKIP(var, file)                                                     \
  const auto var##_opt = ::wacore::test::wycheproof(file);                                       \
  if (!var##_opt) {                                                                              \
    GTEST_SKIP() << "Wycheproof vectors not found in " << ::wacore::test::wycheproof_dir()       \
                 << " (set WACORE_WYCHEPROOF_DIR to run them)";                                  \
  }                                                                                              \
  const nlohmann::json& var = *var##_opt

// The known-answer files every machine has after scripts/setup.sh: Debian's
// python3-cryptography-vectors (NIST CAVP, RFC 3686/4231/5869/7748/8032 test cases). The folder
// is $WACORE_CAVP_DIR when set, else the one CMake found.
std::string cavp_dir();

// One record of a CAVP-style text file ("KEY = value" lines; a key seen again starts the next
// record), with the
// bracketed section headers in force ("[ENCRYPT]" as {"ENCRYPT", ""}, "[Keylen = 256]" as
// {"Keylen", "256"}) and bare flag lines such as "FAIL" as keys with an empty value.
struct KatRecord {
  std::map<std::string, std::string> section;
  std::map<std::string, std::string> fields;
  bool has(const std::string& k) const { return fields.count(k) != 0; }
  const std::string& at(const std::string& k) const { return fields.at(k); }
};
// Reads <cavp_dir()>/<relative_path>; throws (failing the test) when the file cannot be opened.
std::vector<KatRecord> read_kat(const std::string& relative_path);

}  // namespace wacore::test
