// The WAProto codec (src/proto): the generated schema, decoding to the tape, encoding from it, and
// hostile input. The JS tests compare with protobufjs; these pin the tape and the limits.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "proto/codec.h"
#include "proto/schema.h"
#include "test_util.h"

namespace wacore::proto {
namespace {

using Bytes = std::vector<uint8_t>;

uint32_t type_of(const char* name) {
  const int t = schema().find_message(name);
  EXPECT_GE(t, 0) << name;
  return static_cast<uint32_t>(t);
}

int field_index(uint32_t type, uint32_t number) { return schema().find(type, number); }

// decode, then encode what was decoded: the bytes of a canonical input come back.
Bytes round_trip(uint32_t type, const Bytes& in) {
  std::vector<int32_t> tape;
  EXPECT_EQ(decode(type, in, tape), Error::ok);
  Bytes out;
  EXPECT_EQ(reencode(type, tape, in, out), Error::ok);
  return out;
}

TEST(ProtoSchema, GeneratedSchemaParses) {
  const Schema& s = schema();
  ASSERT_TRUE(s.ok);
  EXPECT_GT(s.messages.size(), 400u);
  EXPECT_GT(s.enum_count, 100u);
  const uint32_t message = type_of("Message");
  const int conversation = field_index(message, 1);
  ASSERT_GE(conversation, 0);
  EXPECT_EQ(s.field(message, conversation).kind, kString);
  EXPECT_TRUE(s.field(message, conversation).flags & kPresence);
  const int image = field_index(message, 3);
  ASSERT_GE(image, 0);
  EXPECT_EQ(s.field(message, image).kind, kMessage);
  EXPECT_EQ(static_cast<uint32_t>(s.field(message, image).type), type_of("Message.ImageMessage"));
  EXPECT_EQ(field_index(message, 536870911), -1);
  EXPECT_FALSE(schema_version().empty());
}

TEST(ProtoSchema, RejectsDamagedSchemas) {
  const auto bytes = schema_bytes();
  Schema s;
  EXPECT_TRUE(parse_schema(bytes, s));
  for (size_t cut : {size_t{0}, size_t{3}, size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_FALSE(parse_schema(bytes.first(cut), s)) << cut;
  }
}

TEST(ProtoCodec, DecodesATextMessageToTheTape) {
  const uint32_t message = type_of("Message");
  const Bytes in = {0x0a, 0x02, 'h', 'i'};
  std::vector<int32_t> tape;
  ASSERT_EQ(decode(message, in, tape), Error::ok);
  const std::vector<int32_t> want = {field_index(message, 1), 2, 2 * 2 + 0, kEnd};
  EXPECT_EQ(tape, want);
  EXPECT_EQ(round_trip(message, in), in);
}

TEST(ProtoCodec, MarksNonAsciiStrings) {
  const uint32_t message = type_of("Message");
  const Bytes in = {0x0a, 0x02, 0xc3, 0xa9};  // "é"
  std::vector<int32_t> tape;
  ASSERT_EQ(decode(message, in, tape), Error::ok);
  EXPECT_EQ(tape[2], 2 * 2 + 1);
}

TEST(ProtoCodec, NestedMessagesAndSixtyFourBitValues) {
  // ADVDeviceIdentity { rawId: 7, timestamp: 2^40 + 5, keyIndex: 0 }
  const uint32_t adv = type_of("ADVDeviceIdentity");
  Bytes in = {0x08, 0x07, 0x10};
  uint64_t ts = (uint64_t{1} << 40) + 5;
  while (ts >= 0x80) {
    in.push_back(static_cast<uint8_t>(ts | 0x80));
    ts >>= 7;
  }
  in.push_back(static_cast<uint8_t>(ts));
  in.push_back(0x18);
  in.push_back(0x00);
  std::vector<int32_t> tape;
  ASSERT_EQ(decode(adv, in, tape), Error::ok);
  const std::vector<int32_t> want = {0, 7, 1, 5, 256, 2, 0, kEnd};
  EXPECT_EQ(tape, want);
  EXPECT_EQ(round_trip(adv, in), in);

  // Message { imageMessage { url: "u", fileLength: 9 } }
  const uint32_t message = type_of("Message");
  const uint32_t image = type_of("Message.ImageMessage");
  const Bytes img = {0x0a, 0x01, 'u', 0x28, 0x09};
  Bytes msg = {0x1a, static_cast<uint8_t>(img.size())};
  msg.insert(msg.end(), img.begin(), img.end());
  ASSERT_EQ(decode(message, msg, tape), Error::ok);
  EXPECT_EQ(tape[0], field_index(message, 3));
  EXPECT_EQ(tape[1], field_index(image, 1));
  EXPECT_EQ(round_trip(message, msg), msg);
}

TEST(ProtoCodec, PackedAndUnpackedRepeatedScalars) {
  // ADVKeyIndexList.validIndexes (4) is packed: both forms decode to the same entries; encoding
  // writes the packed form.
  const uint32_t list = type_of("ADVKeyIndexList");
  const int f = field_index(list, 4);
  const Bytes packed = {0x22, 0x03, 0x01, 0x02, 0x03};
  const Bytes unpacked = {0x20, 0x01, 0x20, 0x02, 0x20, 0x03};
  std::vector<int32_t> a, b;
  ASSERT_EQ(decode(list, packed, a), Error::ok);
  ASSERT_EQ(decode(list, unpacked, b), Error::ok);
  const std::vector<int32_t> want = {f, 1, f, 2, f, 3, kEnd};
  EXPECT_EQ(a, want);
  EXPECT_EQ(b, want);
  EXPECT_EQ(round_trip(list, unpacked), packed);
}

TEST(ProtoCodec, UnknownFieldsAndWrongWireTypesAreKept) {
  const uint32_t message = type_of("Message");
  // field 9999 (varint), then conversation (1) sent as a varint: both kept as they came.
  const Bytes in = {0xf8, 0xe1, 0x04, 0x2a, 0x08, 0x05};
  std::vector<int32_t> tape;
  ASSERT_EQ(decode(message, in, tape), Error::ok);
  const std::vector<int32_t> want = {kUnknown, 0, 4, kUnknown, 4, 2, kEnd};
  EXPECT_EQ(tape, want);
  EXPECT_EQ(round_trip(message, in), in);
}

TEST(ProtoCodec, MapsDecodeAndEncode) {
  // MusicUserIdAction.musicUserIdMap: map<string, string> = 2.
  const uint32_t t = type_of("SyncActionValue.MusicUserIdAction");
  const int f = field_index(t, 2);
  ASSERT_GE(f, 0);
  ASSERT_TRUE(schema().field(t, f).flags & kMapField);
  const Bytes in = {0x12, 0x06, 0x0a, 0x01, 'k', 0x12, 0x01, 'v'};
  std::vector<int32_t> tape;
  ASSERT_EQ(decode(t, in, tape), Error::ok);
  const std::vector<int32_t> want = {f, 4, 2, 7, 2, kEnd};
  EXPECT_EQ(tape, want);
  EXPECT_EQ(round_trip(t, in), in);
  // An entry without its value: the value is the default.
  const Bytes keyless = {0x12, 0x00};
  ASSERT_EQ(decode(t, keyless, tape), Error::ok);
  const std::vector<int32_t> empty = {f, 0, 0, 0, 0, kEnd};
  EXPECT_EQ(tape, empty);
}

TEST(ProtoCodec, HostileInputIsATypedError) {
  const uint32_t message = type_of("Message");
  std::vector<int32_t> tape;
  EXPECT_EQ(decode(message, Bytes{0x0a, 0x05, 'h'}, tape), Error::proto_malformed);  // length past the end
  EXPECT_EQ(decode(message, Bytes{0x0a}, tape), Error::proto_malformed);             // no length
  EXPECT_EQ(decode(message, Bytes(11, 0xff), tape), Error::proto_malformed);         // overlong varint key
  EXPECT_EQ(decode(message, Bytes{0x00, 0x00}, tape), Error::proto_malformed);       // field number 0
  EXPECT_EQ(decode(message, Bytes{0x0f}, tape), Error::proto_malformed);             // wire type 7
  EXPECT_EQ(decode(message, Bytes{0x0b, 0x14}, tape), Error::proto_malformed);       // group ended by another number
  EXPECT_EQ(decode(message, Bytes{0x0b, 0x10, 0x01}, tape), Error::proto_malformed); // unterminated group
  ASSERT_EQ(decode(message, Bytes{0x0b, 0x10, 0x01, 0x0c}, tape), Error::ok);        // a group: kept whole
  EXPECT_EQ(tape, (std::vector<int32_t>{kUnknown, 0, 4, kEnd}));
  EXPECT_EQ(decode(9999, Bytes{}, tape), Error::type);

  // Depth: Message.futureProofMessage (Message.FutureProofMessage { message = 1 }) nested 60 times is
  // 120 messages deep.
  const int fp = field_index(message, 40);  // ephemeralMessage: FutureProofMessage
  ASSERT_GE(fp, 0);
  Bytes deep;
  for (int i = 0; i < 60; i++) {
    Bytes outer = {0xc2, 0x02};  // field 40, wire type 2
    // length of the rest, then FutureProofMessage.message (field 1) wrapping it
    Bytes inner = {0x0a};
    Bytes len;
    uint64_t n = deep.size();
    do {
      len.push_back(static_cast<uint8_t>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0)));
      n >>= 7;
    } while (n != 0);
    inner.insert(inner.end(), len.begin(), len.end());
    inner.insert(inner.end(), deep.begin(), deep.end());
    len.clear();
    n = inner.size();
    do {
      len.push_back(static_cast<uint8_t>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0)));
      n >>= 7;
    } while (n != 0);
    outer.insert(outer.end(), len.begin(), len.end());
    outer.insert(outer.end(), inner.begin(), inner.end());
    deep = outer;
  }
  EXPECT_EQ(decode(message, deep, tape), Error::proto_depth);
}

TEST(ProtoCodec, DecodedValuesAreBounded) {
  // PollVoteMessage.selectedOptions (repeated bytes = 1): kMaxValues empty elements decode, one more
  // is too many (each would become an object on the JS side).
  const uint32_t vote = type_of("Message.PollVoteMessage");
  Bytes in;
  in.reserve(2 * (kMaxValues + 1));
  for (size_t i = 0; i < kMaxValues; i++) {
    in.push_back(0x0a);
    in.push_back(0x00);
  }
  std::vector<int32_t> tape;
  ASSERT_EQ(decode(vote, in, tape), Error::ok);
  in.push_back(0x0a);
  in.push_back(0x00);
  EXPECT_EQ(decode(vote, in, tape), Error::proto_too_large);
}

TEST(ProtoCodec, GroupsAndMapsCheckTheirFieldNumbers) {
  const uint32_t message = type_of("Message");
  std::vector<int32_t> tape;
  // an unknown group holding field 0, then one holding a number past 2^29 - 1
  EXPECT_EQ(decode(message, Bytes{0xa3, 0x06, 0x00, 0x00, 0xa4, 0x06}, tape), Error::proto_malformed);
  EXPECT_EQ(decode(message, Bytes{0xa3, 0x06, 0x80, 0x80, 0x80, 0x80, 0x20, 0x00, 0xa4, 0x06}, tape), Error::proto_malformed);
}

TEST(ProtoCodec, UnknownFieldsToEncodeMustBeOneWholeField) {
  const uint32_t message = type_of("Message");
  Bytes out;
  auto enc = [&](const Bytes& area) {
    out.clear();
    return encode(message, std::vector<int32_t>{kUnknown, 0, static_cast<int32_t>(area.size()), kEnd}, area, out);
  };
  EXPECT_EQ(enc(Bytes{0xf8, 0xe1, 0x04, 0x05}), Error::ok);                  // field 9999, varint 5
  EXPECT_EQ(enc(Bytes{0x0b, 0x10, 0x01, 0x0c}), Error::ok);                  // a whole group
  EXPECT_EQ(enc(Bytes{0xff}), Error::proto_malformed);                       // not a field
  EXPECT_EQ(enc(Bytes{0xf8, 0xe1, 0x04, 0x05, 0x08, 0x01}), Error::proto_malformed);  // two fields
  EXPECT_EQ(enc(Bytes{0x0a, 0x05, 'a'}), Error::proto_malformed);            // cut short
  EXPECT_EQ(enc(Bytes{0x0c}), Error::proto_malformed);                       // an end-group alone
  EXPECT_EQ(enc(Bytes{}), Error::proto_malformed);
}

TEST(ProtoCodec, MalformedTapesAreRefused) {
  const uint32_t message = type_of("Message");
  const Bytes area = {'h', 'i'};
  Bytes out;
  const int conversation = field_index(message, 1);
  EXPECT_EQ(encode(message, std::vector<int32_t>{conversation, 0, 2, kEnd}, area, out), Error::ok);
  EXPECT_EQ(out, (Bytes{0x0a, 0x02, 'h', 'i'}));
  out.clear();
  EXPECT_EQ(encode(message, std::vector<int32_t>{conversation, 1, 2, kEnd}, area, out), Error::proto_tape);  // past the area
  EXPECT_EQ(encode(message, std::vector<int32_t>{conversation, 0, 2}, area, out), Error::proto_tape);        // no END
  EXPECT_EQ(encode(message, std::vector<int32_t>{5000, kEnd}, area, out), Error::proto_tape);               // no such field
  EXPECT_EQ(encode(message, std::vector<int32_t>{kEnd, kEnd}, area, out), Error::proto_tape);               // left over
  EXPECT_EQ(encode(message, std::vector<int32_t>{-3, kEnd}, area, out), Error::proto_tape);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace wacore::proto
