#include "test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace wacore::test {

Bytes from_hex(std::string_view hex) {
  auto nibble = [](char c) -> uint8_t {
    if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
    if (c >= 'a' && c <= 'f') return static_cast<uint8_t>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return static_cast<uint8_t>(c - 'A' + 10);
    throw std::invalid_argument("bad hex digit");
  };
  if (hex.size() % 2 != 0) throw std::invalid_argument("odd hex length");
  Bytes out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); i++) {
    out[i] = static_cast<uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  }
  return out;
}

std::string to_hex(const uint8_t* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; i++) {
    s[2 * i] = kDigits[p[i] >> 4];
    s[2 * i + 1] = kDigits[p[i] & 15];
  }
  return s;
}

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : std::string(fallback);
}

std::string trim(std::string s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && space(s.back())) s.pop_back();
  size_t i = 0;
  while (i < s.size() && space(s[i])) i++;
  return s.substr(i);
}

}  // namespace

std::string wycheproof_dir() { return env_or("WACORE_WYCHEPROOF_DIR", WACORE_WYCHEPROOF_DIR); }

std::optional<nlohmann::json> wycheproof(const std::string& file) {
  const std::string dir = wycheproof_dir();
  if (!std::filesystem::is_directory(dir)) return std::nullopt;
  const std::string path = dir + "/" + file;
  std::ifstream in(path);
  // The folder is there but the file is not: a broken vectors folder fails rather than skips.
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

std::string cavp_dir() { return env_or("WACORE_CAVP_DIR", WACORE_CAVP_DIR); }

std::vector<KatRecord> read_kat(const std::string& relative_path) {
  const std::string path = cavp_dir() + "/" + relative_path;
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot open " + path +
                             " (Debian's python3-cryptography-vectors; scripts/setup.sh installs it)");
  }
  std::vector<KatRecord> out;
  std::map<std::string, std::string> section;
  KatRecord cur;
  bool section_open = false;  // a run of [..] lines replaces the previous run as a whole
  const auto flush = [&] {
    if (!cur.fields.empty()) {
      cur.section = section;
      out.push_back(std::move(cur));
    }
    cur = KatRecord{};
  };
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      flush();
      if (!section_open) section.clear();
      section_open = true;
      const std::string inner = line.substr(1, line.size() - 2);
      const size_t eq = inner.find('=');
      if (eq == std::string::npos) {
        section[trim(inner)] = "";
      } else {
        section[trim(inner.substr(0, eq))] = trim(inner.substr(eq + 1));
      }
      continue;
    }
    section_open = false;
    const size_t eq = line.find('=');
    const std::string key = eq == std::string::npos ? line : trim(line.substr(0, eq));
    // Records are not reliably blank-line separated (RFC 5869's file has blanks inside one):
    // a key seen again starts the next record.
    if (cur.has(key)) flush();
    cur.fields[key] = eq == std::string::npos ? "" : trim(line.substr(eq + 1));
  }
  flush();
  return out;
}

}  // namespace wacore::test
