// The binary node codec: golden bytes (docs/protocol.md §7, Baileys 6's own encoder), JID forms, both
// dictionaries, strict decoding errors, truncation, compression, depth, random round trips.
#include "binary/codec.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>

#include "binary/tape.h"
#include "test_util.h"

namespace wacore::binary {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;
}  // namespace

void PrintTo(const Node& n, std::ostream* os) {
  *os << "<" << n.tag;
  for (const auto& [k, v] : n.attrs) *os << " " << k << "=\"" << v << "\"";
  *os << ">";
  switch (n.content) {
    case Node::Content::none: break;
    case Node::Content::text: *os << "text:" << n.text; break;
    case Node::Content::bytes: *os << "bytes:" << to_hex(n.bytes); break;
    case Node::Content::children:
      for (const Node& c : n.children) PrintTo(c, os);
  }
  *os << "</" << n.tag << ">";
}

namespace {

Node text_node(std::string tag, std::vector<std::pair<std::string, std::string>> attrs, std::string text) {
  Node n;
  n.tag = std::move(tag);
  n.attrs = std::move(attrs);
  n.content = Node::Content::text;
  n.text = std::move(text);
  return n;
}

Node leaf(std::string tag, std::vector<std::pair<std::string, std::string>> attrs = {}) {
  Node n;
  n.tag = std::move(tag);
  n.attrs = std::move(attrs);
  return n;
}

Node parent(std::string tag, std::vector<std::pair<std::string, std::string>> attrs, std::vector<Node> kids) {
  Node n = leaf(std::move(tag), std::move(attrs));
  n.content = Node::Content::children;
  n.children = std::move(kids);
  return n;
}

std::string enc(const Node& n, Dict d) {
  std::vector<uint8_t> out;
  EXPECT_EQ(encode(n, d, out), Error::ok);
  return to_hex(out);
}

Node dec(const std::string& hex, Dict d) {
  Node n;
  EXPECT_EQ(decode(from_hex(hex), d, n), Error::ok) << hex;
  return n;
}

// Raw strings travel as BINARY_*, which decoders return as bytes content (Baileys gives a Buffer):
// round-trip comparisons treat text content and bytes content with the same octets as equal.
Node as_bytes(Node n) {
  if (n.content == Node::Content::text) {
    n.content = Node::Content::bytes;
    n.bytes.assign(n.text.begin(), n.text.end());
    n.text.clear();
  }
  for (Node& c : n.children) c = as_bytes(std::move(c));
  return n;
}

Node iq_ping() {
  return parent("iq", {{"id", "1A2B-3"}, {"to", "s.whatsapp.net"}, {"type", "get"}, {"xmlns", "w:p"}}, {leaf("ping")});
}
Node message_hi() {
  return text_node("message",
                   {{"to", "1234567890:12@s.whatsapp.net"}, {"id", "3EB0ABCDEF"}, {"t", "1700000000"}, {"participant", "98765@lid"}},
                   "hi");
}

// docs/protocol.md §7.1 (whatsapp-rust encoder tests) and §7.2, dictionary 3.
TEST(BinaryGolden, Version3Vectors) {
  EXPECT_EQ(enc(text_node("message", {}, "receipt"), Dict::v3), "00f8021307");
  EXPECT_EQ(enc(text_node("test", {}, "-.0123456789"), Dict::v3), "00f802fc0474657374ff06ab0123456789");
  EXPECT_EQ(enc(text_node("test", {}, ""), Dict::v3), "00f802fc0474657374fc00");
  EXPECT_EQ(enc(iq_ping(), Dict::v3), "00f80a1908fc06314132422d33110304291657f801f80156");
  EXPECT_EQ(enc(message_hi(), Dict::v3),
            "00f80a1311f7000cff05123456789008fb053eb0abcdef1aff05170000000005faff8398765f76fc026869");
  EXPECT_EQ(dec("00f80a1908fc06314132422d33110304291657f801f80156", Dict::v3), iq_ping());
  // "hi" is no token: it travels as BINARY_8 and decodes as bytes content.
  EXPECT_EQ(dec("00f80a1311f7000cff05123456789008fb053eb0abcdef1aff05170000000005faff8398765f76fc026869", Dict::v3),
            as_bytes(message_hi()));
  EXPECT_EQ(dec("00f8021307", Dict::v3), text_node("message", {}, "receipt"));  // a token stays text
}

// whatsapp-rust wacore/tests/binary_protocol_test.rs, test_unmarshal_ref_known_good_data: a real
// <success> node (without flag byte there; with 00 here). Dictionary 3; re-encodes to the same bytes.
TEST(BinaryGolden, RealSuccessNode) {
  const std::string wire =
      "00f80f4c1aff0517520218905cee043dfc0366726376f7012aff88100000000000001f4becb43cff0517520200"
      "41ece6fc2c643559623557784c2b6b35554b5148564936627546524751456a30475a413565767a3862365632786b6477"
      "3d";
  const Node want = leaf("success", {{"t", "1752021890"},
                                     {"props", "27"},
                                     {"location", "frc"},
                                     {"lid", "100000000000001:42@lid"},
                                     {"abprops", "10"},
                                     {"creation", "1752020041"},
                                     {"companion_enc_static", "d5Yb5WxL+k5UKQHVI6buFRGQEj0GZA5evz8b6V2xkdw="}});
  EXPECT_EQ(dec(wire, Dict::v3), want);
  EXPECT_EQ(enc(want, Dict::v3), wire);
}

// What npm @whiskeysockets/baileys@6.17.16's own encoder writes (dictionary 2), recorded in
// src/binary/tokens/README.md; its decoder reads them back to these trees.
TEST(BinaryGolden, Version2BaileysBytes) {
  EXPECT_EQ(enc(iq_ping(), Dict::v2), "00f80a1e08fc06314132422d330e030431195ff801f80150");
  EXPECT_EQ(enc(message_hi(), Dict::v2),
            "00f80a0b0ef7000cff05123456789008fb053eb0abcdef1dff05170000000005faff8398765ffc036c6964fc026869");
  EXPECT_EQ(dec("00f80a1e08fc06314132422d330e030431195ff801f80150", Dict::v2), iq_ping());
}

TEST(BinaryGolden, ListAndLengthHeaders) {
  Node many = leaf("x");
  many.content = Node::Content::children;
  many.children.assign(255, leaf("a"));
  std::string h = enc(many, Dict::v3);
  EXPECT_EQ(h.substr(2 + 10, 4), "f8ff") << h.substr(0, 20);  // 00 f802 fc0178 | f8ff
  many.children.push_back(leaf("a"));
  h = enc(many, Dict::v3);
  EXPECT_EQ(h.substr(2 + 10, 6), "f90100");
  Node blob = leaf("x");
  blob.content = Node::Content::bytes;
  blob.bytes.assign(256, 7);
  EXPECT_EQ(enc(blob, Dict::v3).substr(12, 8), "fd000100");
  blob.bytes.assign(1u << 20, 1);
  EXPECT_EQ(enc(blob, Dict::v3).substr(12, 10), "fe00100000");
  for (const Node& n : {many, blob}) {
    std::vector<uint8_t> out;
    ASSERT_EQ(encode(n, Dict::v3, out), Error::ok);
    Node back;
    ASSERT_EQ(decode(out, Dict::v3, back), Error::ok);
    EXPECT_EQ(back, n);
  }
}

// The largest node LIST_16 can describe: 32,767 attributes and no content (found by the fuzzer:
// it decoded but did not re-encode); one more attribute, or content, no longer fits.
TEST(BinaryGolden, AttributeCountAtTheListLimit) {
  Node n = leaf("x");
  for (int i = 0; i < 32767; i++) n.attrs.emplace_back("id", "t");
  std::vector<uint8_t> out;
  ASSERT_EQ(encode(n, Dict::v3, out), Error::ok);
  Node back;
  ASSERT_EQ(decode(out, Dict::v3, back), Error::ok);
  EXPECT_EQ(back, n);
  n.content = Node::Content::text;
  n.text = "receipt";
  out.clear();
  EXPECT_EQ(encode(n, Dict::v3, out), Error::binary_too_large);
  n.content = Node::Content::none;
  n.attrs.emplace_back("id", "t");
  EXPECT_EQ(encode(n, Dict::v3, out), Error::binary_too_large);
}

TEST(BinaryTokens, LookupBothWaysAndKnownIndices) {
  EXPECT_EQ(token_id(Dict::v3, "s.whatsapp.net"), 3);
  EXPECT_EQ(token_id(Dict::v3, "id"), 8);
  EXPECT_EQ(token_id(Dict::v3, "to"), 0x11);
  EXPECT_EQ(token_id(Dict::v3, "message"), 0x13);
  EXPECT_EQ(token_id(Dict::v3, "success"), 0x4C);
  EXPECT_EQ(token_id(Dict::v3, "lid"), 0x76);
  EXPECT_EQ(token_id(Dict::v3, "msgr"), 204);
  EXPECT_EQ(token_id(Dict::v3, "hosted"), -1);
  EXPECT_EQ(token_id(Dict::v3, ""), -1);
  EXPECT_EQ(token_id(Dict::v2, "lid"), -1);
  for (Dict d : {Dict::v2, Dict::v3}) {
    for (int id = 1; id < kTokenCount; id++) {
      ASSERT_EQ(token_id(d, token_string(d, id)), id) << id;
      // Every token decodes from its own bytes.
      std::vector<uint8_t> out;
      ASSERT_EQ(encode(leaf(std::string(token_string(d, id))), d, out), Error::ok);
      ASSERT_EQ(out.size(), id < 236 ? 4u : 5u);
      Node back;
      ASSERT_EQ(decode(out, d, back), Error::ok);
      ASSERT_EQ(back.tag, token_string(d, id));
    }
  }
}

TEST(BinaryJid, EveryFormRoundTrips) {
  struct Case {
    std::string jid;
    std::string wire_tag;  // first byte of the value's encoding
  };
  const Case cases[] = {
      {"1234567890@s.whatsapp.net", "fa"}, {"123-456@g.us", "fa"},          {"status@broadcast", "fa"},
      {"@s.whatsapp.net", "fa"},           {"12345:7@s.whatsapp.net", "f7"}, {"12345:0@s.whatsapp.net", "f7"},
      {"100000000000001:42@lid", "f7"},    {"98765@lid", "fa"},             {"555:1@hosted", "f7"},
      {"555:3@hosted.lid", "f7"},          {"777_9:2@s.whatsapp.net", "f7"}, {"abc:12@msgr", "f6"},
      {"7-user:3@interop", "f5"},          {"120363025246125888@newsletter", "fa"},
      {"a@b@c", "fa"},                     {"x:300@s.whatsapp.net", "fc"},   {"x:01@s.whatsapp.net", "fc"},
      {"u:5@g.us", "fc"},                  {"u_1:2@s.whatsapp.net", "fc"},   {"abc@", "fc"},
      {"7-user:0@interop", "fc"},          {"abc:0@msgr", "fc"},
  };
  for (Dict d : {Dict::v2, Dict::v3}) {
    for (const auto& c : cases) {
      SCOPED_TRACE(c.jid);
      const Node n = leaf("x", {{"jid", c.jid}});
      std::vector<uint8_t> out;
      ASSERT_EQ(encode(n, d, out), Error::ok);
      const std::string h = to_hex(out);
      // 00 f805 <x> <jid key> <value...>: find the value's first byte after the two strings.
      Node back;
      ASSERT_EQ(decode(out, d, back), Error::ok);
      // ":0" is the one text change: AD_JID device 0 decodes without it, as Baileys does.
      std::string want = c.jid;
      if (c.jid == "12345:0@s.whatsapp.net") want = "12345@s.whatsapp.net";
      EXPECT_EQ(back.attrs.at(0).second, want);
      EXPECT_NE(h.find(c.wire_tag), std::string::npos);
    }
  }
  // The forms decode as the named peers print them.
  EXPECT_EQ(dec("00f803fc0178fc036a6964f7010cfc0475736572", Dict::v3).attrs[0].second, "user:12@lid");
  EXPECT_EQ(dec("00f803fc0178fc036a6964f7050cfc0475736572", Dict::v3).attrs[0].second, "user_5:12@s.whatsapp.net");
  EXPECT_EQ(dec("00f803fc0178fc036a6964f7800cfc0475736572", Dict::v3).attrs[0].second, "user:12@hosted");
}

// Truncated input, unknown tags, bad digits, leftovers and bad JID servers are all typed errors.
TEST(BinaryStrict, TypedErrors) {
  auto err = [](const std::string& hex) {
    Node n;
    return decode(from_hex(hex), Dict::v3, n);
  };
  EXPECT_EQ(err(""), Error::binary_truncated);
  EXPECT_EQ(err("00"), Error::binary_truncated);
  EXPECT_EQ(err("00f80213"), Error::binary_truncated);
  for (int t = 240; t <= 244; t++) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "00f802%02x", t);
    EXPECT_EQ(err(std::string(buf) + "00"), Error::binary_tag) << t;       // as the tag
    EXPECT_EQ(err("00f80213" + std::string(buf + 6)), Error::binary_tag) << t;  // as content
  }
  EXPECT_EQ(err("00f8021307ff"), Error::binary_leftover);
  EXPECT_EQ(err("00f80213ff01c0"), Error::binary_packed);  // nibble 12
  EXPECT_EQ(err("00f80213ff81f1"), Error::binary_packed);  // padding nibble must be 15
  EXPECT_EQ(err("00f80213ff01f0"), Error::binary_packed);  // 15 only as padding
  EXPECT_EQ(err("00f80213fb8100"), Error::binary_packed);  // hex odd length, padding 0
  EXPECT_EQ(err("0000"), Error::binary_node);              // empty list as a node
  EXPECT_EQ(err("00f80100"), Error::binary_node);          // "" as a tag
  EXPECT_EQ(err("00f90000"), Error::binary_node);
  EXPECT_EQ(err("0013"), Error::binary_tag);               // a token where a list belongs
  EXPECT_EQ(err("00f80213f6fc01610001fc016d"), Error::binary_jid);  // FB_JID server not msgr
  EXPECT_EQ(err("00f80213f5fc0161000100020b"), Error::binary_jid);  // INTEROP_JID server not interop
  EXPECT_EQ(err("00f80213fa0a00"), Error::binary_jid);     // JID_PAIR with an empty server
  EXPECT_EQ(err("00f80213fafa0303"), Error::binary_jid);   // a JID inside a JID
  EXPECT_EQ(err("00f80213fc05616263"), Error::binary_truncated);  // length past the end
  EXPECT_EQ(err("00f80213fe7fffffff00"), Error::binary_truncated);
  EXPECT_EQ(err("00f8ff13"), Error::binary_truncated);     // 127 attributes announced, none there
  Node n;
  EXPECT_EQ(decode(from_hex("00f8021307"), static_cast<Dict>(4), n), Error::dictionary);
}

TEST(BinaryStrict, EveryTruncationFailsCleanly) {
  for (Dict d : {Dict::v2, Dict::v3}) {
    for (const Node& n : {iq_ping(), message_hi()}) {
      std::vector<uint8_t> out;
      ASSERT_EQ(encode(n, d, out), Error::ok);
      for (size_t len = 0; len < out.size(); len++) {
        Node back;
        EXPECT_NE(decode(std::span<const uint8_t>(out).first(len), d, back), Error::ok) << len;
      }
    }
  }
}

TEST(BinaryStrict, DepthLimit) {
  auto nested = [](size_t depth) {
    Node n = leaf("a");
    for (size_t i = 1; i < depth; i++) n = parent("a", {}, {n});
    return n;
  };
  std::vector<uint8_t> ok, deep;
  ASSERT_EQ(encode(nested(kMaxDepth), Dict::v3, ok), Error::ok);
  Node back;
  EXPECT_EQ(decode(ok, Dict::v3, back), Error::ok);
  EXPECT_EQ(encode(nested(kMaxDepth + 1), Dict::v3, deep), Error::binary_depth);
  // Hand-made: 257 nested single-child lists.
  Bytes wire{0};
  for (size_t i = 0; i <= kMaxDepth; i++) {
    const Bytes level = {0xf8, 0x02, 0x13, 0xf8, 0x01};
    wire.insert(wire.end(), level.begin(), level.end());
  }
  wire.insert(wire.end(), {0xf8, 0x01, 0x13});
  EXPECT_EQ(decode(wire, Dict::v3, back), Error::binary_depth);
}

Bytes compressed_frame(const std::vector<uint8_t>& frame) {
  uLongf n = compressBound(frame.size() - 1);
  Bytes out(1 + n);
  out[0] = kFlagCompressed;
  EXPECT_EQ(compress2(out.data() + 1, &n, frame.data() + 1, frame.size() - 1, 9), Z_OK);
  out.resize(1 + n);
  return out;
}

TEST(BinaryCompression, InflatesAndCapsAt16MiB) {
  std::vector<uint8_t> plain;
  ASSERT_EQ(encode(message_hi(), Dict::v3, plain), Error::ok);
  Node back;
  ASSERT_EQ(decode(compressed_frame(plain), Dict::v3, back), Error::ok);
  EXPECT_EQ(back, as_bytes(message_hi()));
  Bytes bad = compressed_frame(plain);
  bad[bad.size() / 2] ^= 0x55;
  EXPECT_EQ(decode(bad, Dict::v3, back), Error::binary_inflate);
  bad = compressed_frame(plain);
  bad.pop_back();
  EXPECT_EQ(decode(bad, Dict::v3, back), Error::binary_inflate);
  // A node whose content inflates past the cap.
  Node big = leaf("x");
  big.content = Node::Content::bytes;
  big.bytes.assign(kMaxInflatedBytes, 0);
  std::vector<uint8_t> frame;
  ASSERT_EQ(encode(big, Dict::v3, frame), Error::ok);
  EXPECT_EQ(decode(compressed_frame(frame), Dict::v3, back), Error::binary_inflate);
  big.bytes.resize(kMaxInflatedBytes - 100);
  frame.clear();
  ASSERT_EQ(encode(big, Dict::v3, frame), Error::ok);
  EXPECT_EQ(decode(compressed_frame(frame), Dict::v3, back), Error::ok);
}

Node random_node(std::mt19937& rng, int depth) {
  static const char* const words[] = {"message", "id", "to", "1234567890@s.whatsapp.net", "3EB0ABCDEF", "hi",
                                      "123:4@lid", "-.12", "ABCDEF", "abcdef", "", "participant", "ünïcödé",
                                      "98765", "x@g.us", "7-u:3@interop", "w:p", "s.whatsapp.net"};
  auto word = [&] { return std::string(words[rng() % std::size(words)]); };
  Node n = leaf(word());
  if (n.tag.empty()) n.tag = "t";
  for (unsigned i = rng() % 4; i > 0; i--) n.attrs.emplace_back(word(), word());
  switch (rng() % (depth < 4 ? 4 : 3)) {
    case 0: break;
    case 1:
      n.content = Node::Content::text;
      n.text = word();
      if (n.text.empty()) n.text = "e";  // "" as content reads back as an empty list in dictionary 2
      break;
    case 2:
      n.content = Node::Content::bytes;
      n.bytes.resize(rng() % 300);
      for (auto& b : n.bytes) b = static_cast<uint8_t>(rng());
      break;
    default:
      n.content = Node::Content::children;
      for (unsigned i = rng() % 4; i > 0; i--) n.children.push_back(random_node(rng, depth + 1));
  }
  return n;
}

// Adds delta to the offset of every bytes entry of a tape (walks its grammar, tape.h).
void shift_bytes(std::vector<int32_t>& w, int32_t delta) {
  size_t i = 0;
  auto node = [&](auto&& self) -> void {
    const int32_t attrs = w[i + 1];
    i += 2 + 2 * static_cast<size_t>(attrs);
    const int32_t kind = w[i++];
    if (kind == kContentText) i++;
    if (kind == kContentBytes) {
      w[i] += delta;
      i += 2;
    }
    if (kind == kContentChildren) {
      const int32_t n = w[i++];
      for (int32_t c = 0; c < n; c++) self(self);
    }
  };
  node(node);
}

// Random trees round-trip through both forms (tree and tape) and both dictionaries; decoding random
// bytes never crashes (ASan/UBSan build runs this too).
TEST(BinaryProperty, RandomTreesRoundTripAndRandomBytesNeverCrash) {
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; i++) {
    const Node n = random_node(rng, 0);
    for (Dict d : {Dict::v2, Dict::v3}) {
      std::vector<uint8_t> out;
      ASSERT_EQ(encode(n, d, out), Error::ok);
      Node back;
      ASSERT_EQ(decode(out, d, back), Error::ok);
      ASSERT_EQ(as_bytes(back), as_bytes(n));
      DecodedTape tape;
      ASSERT_EQ(decode_tape(out, d, tape), Error::ok);
      // Back through encode_tape, with pool and blob in one area (bytes offsets shifted past the pool).
      std::vector<uint8_t> area = tape.pool;
      area.insert(area.end(), tape.blob.begin(), tape.blob.end());
      std::vector<int32_t> words = tape.words;
      shift_bytes(words, static_cast<int32_t>(tape.pool.size()));
      std::vector<uint8_t> again;
      ASSERT_EQ(encode_tape(words, tape.strings, area, d, again), Error::ok);
      ASSERT_EQ(to_hex(again), to_hex(out));
    }
  }
  for (int i = 0; i < 20000; i++) {
    Bytes junk(1 + rng() % 64);
    for (auto& b : junk) b = static_cast<uint8_t>(rng());
    junk[0] = 0;
    Node back;
    DecodedTape tape;
    (void)decode(junk, Dict::v3, back);
    (void)decode_tape(junk, Dict::v2, tape);
  }
}

TEST(BinaryTape, MalformedTapesAreRejected) {
  const std::vector<uint8_t> area = {'a', 'b'};
  const std::vector<int32_t> strings = {0, 2};
  std::vector<uint8_t> out;
  auto run = [&](std::vector<int32_t> words) { return encode_tape(words, strings, area, Dict::v3, out); };
  EXPECT_EQ(run({0x13, 0, 0}), Error::ok);
  EXPECT_EQ(run({-1, 0, 1, -1}), Error::ok);
  EXPECT_EQ(run({}), Error::binary_tape);
  EXPECT_EQ(run({0x13}), Error::binary_tape);
  EXPECT_EQ(run({0x13, 0, 9}), Error::binary_tape);            // content kind
  EXPECT_EQ(run({-2, 0, 0}), Error::binary_tape);              // string index
  EXPECT_EQ(run({5000, 0, 0}), Error::binary_tape);            // token id
  EXPECT_EQ(run({0x13, 0, 2, 1, 5}), Error::binary_tape);      // bytes out of the area
  EXPECT_EQ(run({0x13, 0, 3, 5}), Error::binary_tape);         // 5 children announced
  EXPECT_EQ(run({0x13, 0, 0, 7}), Error::binary_tape);         // words left over
  EXPECT_EQ(run({0x13, -1, 0}), Error::binary_too_large);
  EXPECT_EQ(run({0x13, 32768, 0}), Error::binary_too_large);
  EXPECT_EQ(run({0, 0, 0}), Error::binary_node);               // "" as a tag
}

}  // namespace
}  // namespace wacore::binary
