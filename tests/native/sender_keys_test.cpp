// Sender keys: derivation vector, conversations in and out of order, both iteration patterns,
// failures that leave the record unchanged, limits at their edges, and both record formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "signal/sender_keys.h"
#include "test_util.h"

namespace wacore::signal {
namespace {

// prefix followed by n in decimal. (GCC 12 at -O3 raises a false -Wrestrict on `"x" + std::string`.)
std::string numbered(const char* prefix, long long n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}

using test::to_hex;
using Bytes = std::vector<uint8_t>;

std::string bin(const SenderKeyRecord& r) {
  std::string out;
  serialize_sender_key_record(r, out);
  return out;
}

struct Group {
  SenderKeyRecord sender, receiver;
  Group() {
    SenderKeyDistribution d;
    EXPECT_EQ(create_sender_key(sender, d), Error::ok);
    Bytes wire;
    encode_distribution(d, wire);
    SenderKeyDistribution parsed;
    EXPECT_EQ(parse_distribution(wire, parsed), Error::ok);
    process_distribution(receiver, parsed);
  }
  Bytes encrypt(std::string_view text) {
    Bytes out;
    EXPECT_EQ(group_encrypt(sender, {reinterpret_cast<const uint8_t*>(text.data()), text.size()}, out), Error::ok);
    return out;
  }
  std::string decrypt(const Bytes& m, Error expect = Error::ok) {
    Bytes pt;
    const std::string before = bin(receiver);
    EXPECT_EQ(group_decrypt(receiver, m, pt), expect);
    if (expect != Error::ok) {
      EXPECT_EQ(bin(receiver), before) << "record changed on failure";
    }
    return std::string(pt.begin(), pt.end());
  }
};

TEST(SenderKeys, WhisperGroupDerivationMatchesPublishedVector) {
  // docs/protocol.md §7.2: chain key 01*32 -> the message key's IV.
  Key32 chain;
  chain.fill(1);
  Key32 seed, next, key;
  chain_step(chain, seed, next);
  std::array<uint8_t, 16> iv;
  sender_message_keys(seed, iv, key);
  EXPECT_EQ(to_hex(iv.data(), 16), "b33d1e557776dcb63983699e5140dd2d");
}

TEST(SenderKeys, DecryptsInOrderAndOutOfOrder) {
  Group g;
  std::vector<Bytes> msgs;
  for (int i = 0; i < 20; i++) msgs.push_back(g.encrypt(numbered("message ", i)));
  EXPECT_EQ(g.decrypt(msgs[0]), "message 0");
  EXPECT_EQ(g.decrypt(msgs[1]), "message 1");
  std::vector<int> order;
  for (int i = 2; i < 20; i++) order.push_back(i);
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  for (int i : order) EXPECT_EQ(g.decrypt(msgs[i]), numbered("message ", i));
  EXPECT_TRUE(g.receiver.states.back().skipped.empty());
  // Every message key is used once.
  g.decrypt(msgs[5], Error::duplicate_message);
}

TEST(SenderKeys, AcceptsBaileysEvenIterationPattern) {
  // Baileys sends 0, 2, 4, ...: the odd keys are skipped and kept.
  Group g;
  std::vector<Bytes> msgs;
  for (int i = 0; i < 10; i++) msgs.push_back(g.encrypt(std::to_string(i)));
  for (int i = 0; i < 10; i += 2) EXPECT_EQ(g.decrypt(msgs[i]), std::to_string(i));
  EXPECT_EQ(g.receiver.states.back().skipped.size(), 4u);
  EXPECT_EQ(g.decrypt(msgs[9]), "9");
}

TEST(SenderKeys, EveryBitFlipIsRejectedAndLeavesTheRecordUnchanged) {
  Group g;
  const Bytes m = g.encrypt("hello group");
  for (size_t bit = 0; bit < m.size() * 8; bit++) {
    Bytes bad = m;
    bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    Bytes pt;
    const std::string before = bin(g.receiver);
    EXPECT_NE(group_decrypt(g.receiver, bad, pt), Error::ok) << "bit " << bit;
    EXPECT_EQ(bin(g.receiver), before) << "bit " << bit;
  }
  EXPECT_EQ(g.decrypt(m), "hello group");
}

TEST(SenderKeys, SkippedKeysKeptUpTo2000) {
  for (uint32_t skip : {2000u, 2001u}) {
    Group g;
    std::vector<Bytes> msgs;
    for (uint32_t i = 0; i <= skip; i++) msgs.push_back(g.encrypt(std::to_string(i)));
    EXPECT_EQ(g.decrypt(msgs[skip]), std::to_string(skip));
    EXPECT_EQ(g.receiver.states.back().skipped.size(), 2000u);
    // The oldest key survives at 2,000 skipped and is evicted at 2,001.
    if (skip == 2000) {
      EXPECT_EQ(g.decrypt(msgs[0]), "0");
    } else {
      g.decrypt(msgs[0], Error::duplicate_message);
      EXPECT_EQ(g.decrypt(msgs[1]), "1");
    }
  }
}

TEST(SenderKeys, ForwardJumpLimitIs25000) {
  for (uint32_t ahead : {25'000u, 25'001u}) {
    Group g;
    // Advance the sender without encrypting every message.
    SenderKeyState& s = g.sender.states.back();
    for (uint32_t i = 0; i < ahead; i++) {
      Key32 seed, next;
      chain_step(s.chain_key, seed, next);
      s.chain_key = next;
      s.iteration++;
    }
    const Bytes m = g.encrypt("far");
    if (ahead == 25'000) {
      EXPECT_EQ(g.decrypt(m), "far");
    } else {
      g.decrypt(m, Error::too_far_ahead);
    }
  }
}

TEST(SenderKeys, RecordKeepsFiveStatesAndReprocessingKeepsProgress) {
  Group g;
  const Bytes m0 = g.encrypt("0"), m1 = g.encrypt("1"), m2 = g.encrypt("2");
  EXPECT_EQ(g.decrypt(m2), "2");
  // The same distribution message again: nothing lost.
  SenderKeyDistribution d;
  SenderKeyRecord copy = g.sender;
  ASSERT_EQ(create_sender_key(copy, d), Error::ok);
  d.iteration = 0;
  process_distribution(g.receiver, d);
  EXPECT_EQ(g.receiver.states.size(), 1u);
  EXPECT_EQ(g.decrypt(m0), "0");
  g.decrypt(m2, Error::duplicate_message);
  // Six other senders' chains: the oldest (ours) is dropped.
  for (int i = 0; i < 5; i++) {
    SenderKeyRecord other;
    SenderKeyDistribution od;
    ASSERT_EQ(create_sender_key(other, od), Error::ok);
    process_distribution(g.receiver, od);
  }
  EXPECT_EQ(g.receiver.states.size(), kMaxSenderKeyStates);
  g.decrypt(m1, Error::no_sender_key);
}

TEST(SenderKeys, RotationAfterANewDistributionMessage) {
  Group g;
  EXPECT_EQ(g.decrypt(g.encrypt("old")), "old");
  const Bytes late_old = g.encrypt("late old");
  g.sender = SenderKeyRecord{};
  SenderKeyDistribution d;
  ASSERT_EQ(create_sender_key(g.sender, d), Error::ok);
  process_distribution(g.receiver, d);
  EXPECT_EQ(g.decrypt(g.encrypt("new")), "new");
  EXPECT_EQ(g.decrypt(late_old), "late old");
}

TEST(SenderKeys, EncryptNeedsTheSigningPrivateKey) {
  Group g;
  Bytes out;
  EXPECT_EQ(group_encrypt(g.receiver, {}, out), Error::no_session);
  SenderKeyRecord empty;
  EXPECT_EQ(group_encrypt(empty, {}, out), Error::no_session);
}

TEST(SenderKeys, RecordsRoundTripInBothFormats) {
  Group g;
  for (int i = 0; i < 5; i++) g.encrypt("x");
  const Bytes m = g.encrypt("y");
  EXPECT_EQ(g.decrypt(m), "y");
  for (const SenderKeyRecord* r : {&g.sender, &g.receiver}) {
    const std::string b = bin(*r);
    SenderKeyRecord parsed;
    ASSERT_EQ(parse_sender_key_record({reinterpret_cast<const uint8_t*>(b.data()), b.size()}, parsed), Error::ok);
    EXPECT_EQ(bin(parsed), b);
    std::string json;
    sender_key_record_to_json(*r, json);
    SenderKeyRecord from_json;
    ASSERT_EQ(sender_key_record_from_json(json, from_json), Error::ok);
    EXPECT_EQ(bin(from_json), b);
    std::string json2;
    sender_key_record_to_json(from_json, json2);
    EXPECT_EQ(json2, json);
  }
  // Baileys 6's JSON store keeps each skipped key as "{}" (its toJSON drops the fields): read as none.
  SenderKeyRecord lossy;
  ASSERT_EQ(sender_key_record_from_json(R"([{"senderKeyId":7,"senderChainKey":{"iteration":3,"seed":"SC8U6lvkUpQvKw5jyZnwY2zgj+AJ6Jv1dUkyekxawts="},"senderSigningKey":{"public":"BaMBIX3c7UDLeeRB4FL8c5S9o8dkItk6Mo5r0ZI0gQNl"},"senderMessageKeys":[{},{}]}])", lossy), Error::ok);
  EXPECT_TRUE(lossy.states.at(0).skipped.empty());
  EXPECT_EQ(lossy.states[0].iteration, 3u);
  SenderKeyRecord bad;
  EXPECT_EQ(sender_key_record_from_json("{}", bad), Error::invalid_record);
  EXPECT_EQ(sender_key_record_from_json("[{\"senderKeyId\":1}]", bad), Error::invalid_record);
  const uint8_t junk[] = {0x0a, 0x05, 0x08};
  EXPECT_EQ(parse_sender_key_record(junk, bad), Error::invalid_record);
}

TEST(SenderKeys, DistributionMessageRejectsTruncation) {
  SenderKeyRecord r;
  SenderKeyDistribution d;
  ASSERT_EQ(create_sender_key(r, d), Error::ok);
  Bytes wire;
  encode_distribution(d, wire);
  for (size_t n = 0; n < wire.size(); n++) {
    SenderKeyDistribution out;
    EXPECT_EQ(parse_distribution({wire.data(), n}, out), Error::invalid_message) << n;
  }
}

}  // namespace
}  // namespace wacore::signal
