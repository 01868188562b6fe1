// Native timing of the session record's two formats: libsignal-node's JSON in and out
// (record_from_json, record_to_json) and the binary form in (parse_record), on record files that
// bench/record-json.sh writes from a real conversation. Run through that script.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "signal/session.h"

using namespace wacore::signal;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: record_json RECORD.json RECORD.bin\n");
    return 2;
  }
  std::ifstream f(argv[1]);
  const std::string json((std::istreambuf_iterator<char>(f)), {});
  std::ifstream g(argv[2], std::ios::binary);
  const std::vector<uint8_t> bin((std::istreambuf_iterator<char>(g)), {});
  constexpr int kRounds = 200000;
  const auto us = [](auto a, auto b) { return std::chrono::duration<double, std::micro>(b - a).count() / kRounds; };
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; i++) {
    Record r;
    if (record_from_json(json, r) != wacore::Error::ok) return 1;
  }
  const auto t1 = std::chrono::steady_clock::now();
  Record record;
  if (record_from_json(json, record) != wacore::Error::ok) return 1;
  for (int i = 0; i < kRounds; i++) {
    std::string out;
    record_to_json(record, out);
  }
  const auto t2 = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; i++) {
    Record r;
    parse_record(bin, r);
  }
  const auto t3 = std::chrono::steady_clock::now();
  std::printf("record of %zu JSON bytes, %zu binary bytes: record_from_json %.2f us, record_to_json %.2f us, parse_record %.2f us\n",
              json.size(), bin.size(), us(t0, t1), us(t1, t2), us(t2, t3));
  return 0;
}
