// libFuzzer target for the WAProto codec (src/proto/), run by scripts/fuzz.sh proto.
//
// The first two bytes pick a message type of the schema (modulo their number); the rest is decoded
// as that type. Properties: decoding never reads outside the input and fails only with a protobuf
// error; what decodes encodes again, and that canonical form decodes and re-encodes to itself
// (encode(decode(encode(decode(x)))) == encode(decode(x))).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "proto/codec.h"
#include "proto/schema.h"

namespace {

using wacore::Error;

bool proto_error(Error e) {
  return e == Error::proto_malformed || e == Error::proto_depth || e == Error::proto_too_large;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& s = wacore::proto::schema();
  if (!s.ok) std::abort();
  if (size < 2) return 0;
  const uint32_t type = static_cast<uint32_t>((data[0] << 8) | data[1]) % static_cast<uint32_t>(s.messages.size());
  const std::span<const uint8_t> in(data + 2, size - 2);

  std::vector<int32_t> tape;
  const Error e = wacore::proto::decode(type, in, tape);
  if (e != Error::ok) {
    if (!proto_error(e)) std::abort();
    return 0;
  }
  std::vector<uint8_t> once;
  if (wacore::proto::reencode(type, tape, in, once) != Error::ok) std::abort();
  std::vector<int32_t> again;
  if (wacore::proto::decode(type, once, again) != Error::ok) std::abort();
  std::vector<uint8_t> twice;
  if (wacore::proto::reencode(type, again, once, twice) != Error::ok) std::abort();
  if (once != twice) std::abort();
  return 0;
}
