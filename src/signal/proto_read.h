// Field readers shared by the Signal protobuf parsers (proto.cpp, sender_keys_proto.cpp): a field of
// the wrong wire type or size throws Malformed, which each parser's public functions catch along
// with protozero's own exceptions.
#pragma once

#include <protozero/pbf_reader.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>

#include "signal/session.h"

namespace wacore::signal::proto_read {

using protozero::pbf_reader;
using protozero::pbf_wire_type;

struct Malformed {};

[[noreturn]] inline void malformed() { throw Malformed{}; }

inline void expect(const pbf_reader& r, pbf_wire_type t) {
  if (r.wire_type() != t) malformed();
}

inline uint32_t read_u32(pbf_reader& r) {
  expect(r, pbf_wire_type::varint);
  const uint64_t v = r.get_uint64();
  if (v > UINT32_MAX) malformed();
  return static_cast<uint32_t>(v);
}

inline std::span<const uint8_t> read_bytes(pbf_reader& r) {
  expect(r, pbf_wire_type::length_delimited);
  const protozero::data_view v = r.get_view();
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size()};
}

inline pbf_reader read_message(pbf_reader& r) {
  expect(r, pbf_wire_type::length_delimited);
  return r.get_message();
}

template <size_t N>
void read_fixed(pbf_reader& r, std::array<uint8_t, N>& out) {
  const auto v = read_bytes(r);
  if (v.size() != N) malformed();
  std::memcpy(out.data(), v.data(), N);
}

// A public key on the wire: 33 bytes with the 0x05 type byte.
inline void read_public_key(pbf_reader& r, PublicKey& out) {
  read_fixed(r, out);
  if (out[0] != 0x05) malformed();
}

}  // namespace wacore::signal::proto_read
