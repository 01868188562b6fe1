// protozero's pbf_reader::next() with the length of a length-delimited field checked against what is
// left of the input, for the protobuf parsers.
//
// Why: protozero 1.7.1 (Debian's) reads a field length as uint32_t and checks it with
// `m_end - m_data < static_cast<ptrdiff_t>(len)`. On wasm32 ptrdiff_t is 32 bits, so a length of
// 2^31 or more turns negative, passes the check, and the reader moves past the end of the input:
// one flipped bit in a length varint made verifySyncdPatch read out of bounds in the wasm builds
// (native 64-bit builds, and so the native fuzzers, never see it). Checking here, before
// get_view()/get_message()/skip() read the length, covers every length-delimited access.
#pragma once

#include <protozero/exception.hpp>
#include <protozero/pbf_reader.hpp>
#include <protozero/varint.hpp>

namespace wacore {

// r.next(), then for a length-delimited field: its length must fit in the rest of the input
// (throws protozero::end_of_buffer_exception otherwise, as protozero does on short input).
inline bool pbf_next(protozero::pbf_reader& r) {
  if (!r.next()) return false;
  if (r.wire_type() == protozero::pbf_wire_type::length_delimited) {
    const protozero::data_view rest = r.data();
    const char* p = rest.data();
    const char* const end = p + rest.size();
    const uint64_t len = protozero::decode_varint(&p, end);
    if (len > static_cast<uint64_t>(end - p)) throw protozero::end_of_buffer_exception{};
  }
  return true;
}

}  // namespace wacore
