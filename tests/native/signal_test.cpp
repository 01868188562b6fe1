// Signal 1:1 sessions: golden vectors, conversations, failures that leave everything unchanged, limits
// at their edges, and both record formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "crypto/curve25519.h"
#include "signal/json_common.h"
#include "signal/session.h"
#include "test_util.h"

namespace wacore::signal {
namespace {

// prefix followed by n in decimal. (GCC 12 at -O3 raises a false -Wrestrict on `"x" + std::string`.)
std::string label(const char* prefix, long long n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}

using test::from_hex;
using test::to_hex;
using Bytes = std::vector<uint8_t>;

template <size_t N>
std::array<uint8_t, N> arr(std::string_view hex) {
  const Bytes b = from_hex(hex);
  std::array<uint8_t, N> a{};
  EXPECT_EQ(b.size(), N);
  std::copy_n(b.begin(), std::min(N, b.size()), a.begin());
  return a;
}

KeyPair key_pair() {
  KeyPair kp;
  kp.pub[0] = 0x05;
  EXPECT_EQ(curve::generate_key_pair(kp.priv.data(), kp.pub.data() + 1), Error::ok);
  return kp;
}

Bytes bytes_of(std::string_view s) { return Bytes(s.begin(), s.end()); }

std::string serialized(const Record& r) {
  std::string out;
  EXPECT_EQ(serialize_record(r, out), Error::ok);
  return out;
}

// One device: identity, registration id, a signed pre-key, one-time pre-keys, and one record for
// the peer it talks to.
struct Party {
  KeyPair identity = key_pair();
  uint32_t registration_id;
  uint32_t signed_id = 7;
  KeyPair signed_prekey = key_pair();
  std::array<uint8_t, 64> signature{};
  std::map<uint32_t, KeyPair> prekeys;
  Record record;
  int64_t clock = 1'700'000'000'000;

  explicit Party(uint32_t reg) : registration_id(reg) {
    EXPECT_EQ(curve::sign(identity.priv.data(), signed_prekey.pub, signature.data()), Error::ok);
    for (uint32_t id = 1; id <= 3; id++) prekeys[id] = key_pair();
  }

  PreKeyBundle bundle(bool with_prekey, uint32_t prekey_id = 1) const {
    PreKeyBundle b;
    b.registration_id = registration_id;
    b.identity = identity.pub;
    b.signed_prekey_id = signed_id;
    b.signed_prekey = signed_prekey.pub;
    b.signature = signature;
    if (with_prekey) {
      b.has_prekey = true;
      b.prekey_id = prekey_id;
      b.prekey = prekeys.at(prekey_id).pub;
    }
    return b;
  }

  EncryptResult send(std::string_view text) {
    EncryptResult r;
    EXPECT_EQ(encrypt(record, identity.pub, registration_id, bytes_of(text), r), Error::ok);
    return r;
  }

  // Decrypts as SessionCipher would: PreKey messages with the stored pre-keys (consumed on success).
  Error receive(const EncryptResult& m, std::string* text = nullptr) {
    DecryptResult out;
    Error e;
    clock += 1000;
    if (m.type == kTypePreKey) {
      PreKeyMessage pm;
      if ((e = parse_prekey_message(m.body, pm)) != Error::ok) return e;
      const KeyPair* spk = pm.signed_prekey_id == signed_id ? &signed_prekey : nullptr;
      auto it = prekeys.find(pm.prekey_id);
      const KeyPair* opk = pm.has_prekey_id && it != prekeys.end() ? &it->second : nullptr;
      e = decrypt_prekey(record, identity, m.body, spk, opk, clock, out);
      if (e == Error::ok && out.prekey_used) prekeys.erase(pm.prekey_id);
    } else {
      e = decrypt_whisper(record, identity.pub, m.body, clock, out);
    }
    if (e == Error::ok && text != nullptr) *text = std::string(out.plaintext.begin(), out.plaintext.end());
    return e;
  }
};

// Alice starts a session with Bob's bundle.
void start(Party& alice, const Party& bob, bool with_prekey = true) {
  ASSERT_EQ(init_outgoing(alice.record, alice.identity, bob.bundle(with_prekey), alice.clock), Error::ok);
}

TEST(SignalVectors, X3dhChainKeysFromLibsignal) {
  // signalapp/libsignal rust/protocol/tests/ratchet.rs (commit 3157a9be): Bob's first sending
  // chain key and Alice's first receiving chain key, both chunk 1 of the "WhisperText" HKDF.
  const auto bob_identity_pub = arr<33>("05f1f43874f6966956c2dd473f8fa15adeb71d1cb991b2341692324cefb1c5e626");
  const auto bob_identity_priv = arr<32>("4875cc69ddf8ea0719ec947d61081135868d5fd801f02c0225e516df2156605e");
  const auto alice_base_pub = arr<33>("05472d1fb1a9862c3af6beaca8920277e2b26f4a79213ec7c906aeb35e03cf8950");
  const auto alice_base_priv = arr<32>("11ae7c64d1e61cd596b76a0db5012673391cae66edbfcf073b4da80516a47449");
  const auto alice_identity_pub = arr<33>("05b4a8455660ada65b401007f615e654041746432e3339c6875149bceefcb42b4a");
  const auto alice_identity_priv = arr<32>("9040f0d4e09cf38f6dc7c13779c908c015a1da4fa78737a080eb0a6f4f5f8f58");
  const auto bob_spk_pub = arr<33>("05ac248a8f263be6863576eb0362e28c828f0107a3379d34bab1586bf8c770cd67");
  const auto bob_spk_priv = arr<32>("583900131fb727998b7803fe6ac22cc591f342e4e42a8c8d5d78194209b8d253");

  uint8_t secret[kX3dhMaxSecret];
  size_t len = 0;
  Key32 root, chain;
  ASSERT_EQ(x3dh_responder_secret(bob_identity_priv, bob_spk_priv, nullptr, alice_identity_pub, alice_base_pub,
                                  secret, len),
            Error::ok);
  ASSERT_EQ(len, 128u);
  derive_initial_keys(std::span<const uint8_t>(secret, len), root, chain);
  EXPECT_EQ(to_hex(chain.data(), 32), "9797caca53c989bbe229a40ca7727010eb2604fc14945d77958a0aeda088b44d");
  const Key32 bob_root = root;

  ASSERT_EQ(x3dh_initiator_secret(alice_identity_priv, alice_base_priv, bob_identity_pub, bob_spk_pub, nullptr,
                                  secret, len),
            Error::ok);
  derive_initial_keys(std::span<const uint8_t>(secret, len), root, chain);
  EXPECT_EQ(to_hex(chain.data(), 32), "ab9be50e5cb22a925446ab90ee5670545f4fd32902459ec274b6ad0ae5d6031a");
  EXPECT_NE(root, bob_root);  // two independent vectors, not one session's two sides
}

TEST(SignalVectors, ChainKeyDerivation) {
  // signalapp/libsignal rust/protocol/src/ratchet/keys.rs, test_chain_key_derivation.
  const auto chain_key = arr<32>("8ab72d6f4cc5ac0d387eaf463378ddb28edd07385b1cb01250c715982e7ad48f");
  Key32 seed, next, cipher, mac;
  std::array<uint8_t, 16> iv;
  chain_step(chain_key, seed, next);
  message_keys(seed, cipher, mac, iv);
  EXPECT_EQ(to_hex(cipher.data(), 32), "bf51e9d75e0e31031051f82a2491ffc084fa298b7793bd9db620056febf45217");
  EXPECT_EQ(to_hex(mac.data(), 32), "c6c77d6a73a354337a56435e34607dfe48e3ace14e77314dc6abc172e7a7030b");
  EXPECT_EQ(to_hex(next.data(), 32), "28e8f8fee54b801eef7c5cfb2f17f32c7b334485bbb70fac6ec10342a246d15d");
}

TEST(SignalSession, ConversationWithAndWithoutOneTimePreKey) {
  for (bool with_prekey : {true, false}) {
    Party alice(1111), bob(2222);
    start(alice, bob, with_prekey);
    EncryptResult m1 = alice.send("hello bob");
    EXPECT_EQ(m1.type, kTypePreKey);
    EXPECT_EQ(m1.registration_id, 2222u);
    std::string text;
    ASSERT_EQ(bob.receive(m1, &text), Error::ok);
    EXPECT_EQ(text, "hello bob");
    EXPECT_EQ(bob.prekeys.count(1), with_prekey ? 0u : 1u);
    // Until Alice hears back, she keeps sending PreKey messages.
    EncryptResult m2 = alice.send("again");
    EXPECT_EQ(m2.type, kTypePreKey);
    ASSERT_EQ(bob.receive(m2, &text), Error::ok);
    EncryptResult r1 = bob.send("hi alice");
    EXPECT_EQ(r1.type, kTypeWhisper);
    EXPECT_EQ(r1.registration_id, 1111u);
    ASSERT_EQ(alice.receive(r1, &text), Error::ok);
    EXPECT_EQ(text, "hi alice");
    EXPECT_EQ(alice.send("now plain").type, kTypeWhisper);
    // Several ratchet steps each way.
    for (int round = 0; round < 8; round++) {
      for (int i = 0; i < 3; i++) {
        ASSERT_EQ(bob.receive(alice.send(label("a", round * 10 + i)), &text), Error::ok);
        EXPECT_EQ(text, label("a", round * 10 + i));
      }
      ASSERT_EQ(alice.receive(bob.send(label("b", round)), &text), Error::ok);
      EXPECT_EQ(text, label("b", round));
    }
    EXPECT_LE(alice.record.sessions[0].receivers.size(), kMaxReceiverChains);
    EXPECT_LE(bob.record.sessions[0].receivers.size(), kMaxReceiverChains);
  }
}

TEST(SignalSession, OutOfOrderAndOldChainAfterRatchetStep) {
  Party alice(1), bob(2);
  start(alice, bob);
  ASSERT_EQ(bob.receive(alice.send("first")), Error::ok);
  ASSERT_EQ(alice.receive(bob.send("reply")), Error::ok);
  std::vector<EncryptResult> batch;
  for (int i = 0; i < 20; i++) batch.push_back(alice.send(label("m", i)));
  // Deliver the odd ones, then a ratchet step, then the even ones (old chain).
  std::string text;
  for (int i = 1; i < 20; i += 2) {
    ASSERT_EQ(bob.receive(batch[i], &text), Error::ok);
    EXPECT_EQ(text, label("m", i));
  }
  ASSERT_EQ(alice.receive(bob.send("step")), Error::ok);
  ASSERT_EQ(bob.receive(alice.send("new chain")), Error::ok);
  for (int i = 18; i >= 0; i -= 2) {
    ASSERT_EQ(bob.receive(batch[i], &text), Error::ok);
    EXPECT_EQ(text, label("m", i));
  }
  EXPECT_EQ(bob.receive(batch[4]), Error::duplicate_message);
}

TEST(SignalSession, WireBytesMatchTheLayout) {
  Party alice(77), bob(88);
  start(alice, bob);
  EncryptResult m = alice.send("x");
  ASSERT_EQ(m.type, kTypePreKey);
  PreKeyMessage pm;
  ASSERT_EQ(parse_prekey_message(m.body, pm), Error::ok);
  EXPECT_EQ(m.body[0], 0x33);
  EXPECT_TRUE(pm.has_prekey_id);
  EXPECT_EQ(pm.prekey_id, 1u);
  EXPECT_EQ(pm.signed_prekey_id, bob.signed_id);
  EXPECT_EQ(pm.registration_id, 77u);
  EXPECT_EQ(pm.identity_key, alice.identity.pub);
  WhisperMessage wm;
  ASSERT_EQ(parse_whisper_message(pm.message, wm), Error::ok);
  EXPECT_EQ(wm.counter, 0u);
  EXPECT_EQ(wm.previous_counter, 0u);
  EXPECT_EQ(wm.ciphertext.size(), 16u);
  EXPECT_EQ(wm.mac.size(), kMacBytes);
}

TEST(SignalSession, BadSignedPreKeySignatureIsRejected) {
  Party alice(1), bob(2);
  PreKeyBundle b = bob.bundle(true);
  b.signature[5] ^= 1;
  const std::string before = serialized(alice.record);
  EXPECT_EQ(init_outgoing(alice.record, alice.identity, b, 0), Error::bad_signature);
  EXPECT_EQ(serialized(alice.record), before);
}

// Every failure leaves the record byte-identical, and the next genuine message still decrypts.
TEST(SignalSession, NothingLostOnAnyFailure) {
  Party alice(1), bob(2);
  start(alice, bob);
  ASSERT_EQ(bob.receive(alice.send("setup")), Error::ok);
  ASSERT_EQ(alice.receive(bob.send("ack")), Error::ok);
  const EncryptResult genuine = alice.send("genuine");
  const std::string before = serialized(bob.record);

  // Every bit of the message flipped: rejected, record untouched.
  for (size_t i = 0; i < genuine.body.size(); i++) {
    for (int bit = 0; bit < 8; bit++) {
      EncryptResult bad = genuine;
      bad.body[i] ^= static_cast<uint8_t>(1 << bit);
      const Error e = bob.receive(bad);
      ASSERT_NE(e, Error::ok) << "byte " << i << " bit " << bit;
      ASSERT_EQ(serialized(bob.record), before) << "byte " << i << " bit " << bit;
    }
  }
  // Every truncation.
  for (size_t n = 0; n < genuine.body.size(); n++) {
    EncryptResult bad = genuine;
    bad.body.resize(n);
    ASSERT_NE(bob.receive(bad), Error::ok);
    ASSERT_EQ(serialized(bob.record), before);
  }
  std::string text;
  ASSERT_EQ(bob.receive(genuine, &text), Error::ok);
  EXPECT_EQ(text, "genuine");
  // The same message again: a duplicate, reported as such, and nothing changes.
  const std::string after = serialized(bob.record);
  EXPECT_EQ(bob.receive(genuine), Error::duplicate_message);
  EXPECT_EQ(serialized(bob.record), after);
  ASSERT_EQ(bob.receive(alice.send("next")), Error::ok);
}

TEST(SignalSession, PreKeyFailuresKeepRecordAndPreKeys) {
  Party alice(1), bob(2);
  start(alice, bob);
  const EncryptResult m = alice.send("hello");
  const std::string before = serialized(bob.record);
  // The one-time pre-key is gone: invalid pre-key id, nothing kept.
  KeyPair saved = bob.prekeys[1];
  bob.prekeys.erase(1);
  EXPECT_EQ(bob.receive(m), Error::invalid_prekey_id);
  EXPECT_EQ(serialized(bob.record), before);
  bob.prekeys[1] = saved;
  // Signed pre-key unknown.
  bob.signed_id = 99;
  EXPECT_EQ(bob.receive(m), Error::invalid_prekey_id);
  EXPECT_EQ(serialized(bob.record), before);
  bob.signed_id = 7;
  // Inner message corrupted: no session is created and the pre-key is not consumed.
  EncryptResult bad = m;
  PreKeyMessage pm;
  ASSERT_EQ(parse_prekey_message(m.body, pm), Error::ok);
  const size_t mac_end = static_cast<size_t>(pm.message.data() - m.body.data()) + pm.message.size();
  bad.body[mac_end - 1] ^= 0x40;  // the inner WhisperMessage's MAC
  EXPECT_EQ(bob.receive(bad), Error::bad_mac);
  EXPECT_EQ(serialized(bob.record), before);
  EXPECT_EQ(bob.prekeys.count(1), 1u);
  // The genuine message works, uses the pre-key; a retransmission is a duplicate.
  ASSERT_EQ(bob.receive(m), Error::ok);
  EXPECT_EQ(bob.prekeys.count(1), 0u);
  const std::string after = serialized(bob.record);
  EXPECT_EQ(bob.receive(m), Error::duplicate_message);
  EXPECT_EQ(serialized(bob.record), after);
}

TEST(SignalSession, SessionResetWithNewPreKeyMessage) {
  Party alice(1), bob(2);
  start(alice, bob);
  ASSERT_EQ(bob.receive(alice.send("one")), Error::ok);
  ASSERT_EQ(alice.receive(bob.send("two")), Error::ok);
  const EncryptResult old_chain = bob.send("late, old session");
  const EncryptResult late_from_alice = alice.send("in flight from the old session");
  // Alice loses her state and starts over.
  Party alice2 = alice;
  alice2.record = Record{};
  bob.prekeys[1] = bob.prekeys[2];  // bundle(true) names pre-key 1 again: make it exist
  start(alice2, bob, true);
  std::string text;
  ASSERT_EQ(bob.receive(alice2.send("fresh start"), &text), Error::ok);
  EXPECT_EQ(text, "fresh start");
  ASSERT_EQ(bob.record.sessions.size(), 2u);
  EXPECT_FALSE(bob.record.sessions[0].open());
  EXPECT_TRUE(bob.record.sessions[1].open());
  ASSERT_EQ(alice2.receive(bob.send("welcome back"), &text), Error::ok);
  // A message still in flight on the old session decrypts with the archived session.
  ASSERT_EQ(bob.receive(late_from_alice, &text), Error::ok);
  EXPECT_EQ(text, "in flight from the old session");
  EXPECT_TRUE(bob.record.sessions[1].open());
  ASSERT_EQ(alice.receive(old_chain, &text), Error::ok);
  EXPECT_EQ(text, "late, old session");
}

TEST(SignalLimits, SkippedKeysEdge) {
  for (uint32_t skipped : {static_cast<uint32_t>(kMaxSkippedKeysPerChain), static_cast<uint32_t>(kMaxSkippedKeysPerChain + 1)}) {
    Party alice(1), bob(2);
    start(alice, bob);
    std::vector<EncryptResult> msgs;
    for (uint32_t i = 0; i <= skipped; i++) msgs.push_back(alice.send("m"));
    ASSERT_EQ(bob.receive(msgs.back()), Error::ok);  // skips `skipped` keys
    EXPECT_EQ(bob.record.sessions[0].receivers[0].skipped.size(), std::min<size_t>(skipped, kMaxSkippedKeysPerChain));
    // The oldest is evicted at 2,001 and then reads as a duplicate; at 2,000 all decrypt.
    const Error first = bob.receive(msgs[0]);
    EXPECT_EQ(first, skipped > kMaxSkippedKeysPerChain ? Error::duplicate_message : Error::ok);
    for (uint32_t i = 1; i < skipped; i++) ASSERT_EQ(bob.receive(msgs[i]), Error::ok) << i;
  }
}

TEST(SignalLimits, ForwardJumpEdge) {
  for (uint32_t jump : {kMaxForwardJump, kMaxForwardJump + 1}) {
    Party alice(1), bob(2);
    start(alice, bob);
    ASSERT_EQ(bob.receive(alice.send("first")), Error::ok);
    ASSERT_EQ(alice.receive(bob.send("ack")), Error::ok);
    for (uint32_t i = 0; i < jump; i++) alice.send("");
    const std::string before = serialized(bob.record);
    const Error e = bob.receive(alice.send("far"));
    if (jump > kMaxForwardJump) {
      EXPECT_EQ(e, Error::too_far_ahead);
      EXPECT_EQ(serialized(bob.record), before);
    } else {
      EXPECT_EQ(e, Error::ok);
      EXPECT_EQ(bob.record.sessions[0].receivers.back().skipped.size(), kMaxSkippedKeysPerChain);
    }
  }
}

TEST(SignalLimits, ReceiverChainsAndArchivedSessions) {
  Party alice(1), bob(2);
  start(alice, bob);
  for (int i = 0; i < 12; i++) {
    ASSERT_EQ(bob.receive(alice.send("a")), Error::ok);
    ASSERT_EQ(alice.receive(bob.send("b")), Error::ok);
    EXPECT_LE(bob.record.sessions[0].receivers.size(), kMaxReceiverChains);
    EXPECT_LE(alice.record.sessions[0].receivers.size(), kMaxReceiverChains);
  }
  EXPECT_EQ(bob.record.sessions[0].receivers.size(), kMaxReceiverChains);
  // 45 new outgoing sessions: 40 archived plus the open one remain, the oldest closed dropped.
  for (int i = 0; i < 45; i++) {
    alice.clock += 10;
    ASSERT_EQ(init_outgoing(alice.record, alice.identity, bob.bundle(false), alice.clock), Error::ok);
  }
  EXPECT_EQ(alice.record.sessions.size(), kMaxArchivedSessions + 1);
  EXPECT_EQ(std::count_if(alice.record.sessions.begin(), alice.record.sessions.end(),
                          [](const Session& s) { return s.open(); }),
            1);
}

// Numbers in the JSON records are read from their text: integral values in range, in any form a
// JavaScript writer produces; nothing fractional, out of range, or not a number.
TEST(SignalRecords, JsonIntegersAreIntegralNumbersInRange) {
  const auto read = [](const char* text, int64_t lo, int64_t hi) -> std::optional<int64_t> {
    json::Document doc;
    doc.Parse<json::kParseFlags>(text);
    int64_t v = 0;
    if (doc.HasParseError() || !json::integer(doc, lo, hi, v)) return std::nullopt;
    return v;
  };
  const int64_t big = int64_t{1} << 53;
  EXPECT_EQ(read("12", 0, 100), 12);
  EXPECT_EQ(read("-3", -10, 10), -3);
  EXPECT_EQ(read("0", 0, 0), 0);
  EXPECT_EQ(read("-0", 0, 0), 0);
  EXPECT_EQ(read("12.0", 0, 100), 12);
  EXPECT_EQ(read("1.2e1", 0, 100), 12);
  EXPECT_EQ(read("120e-1", 0, 100), 12);
  EXPECT_EQ(read("0.00e5", 0, 100), 0);
  EXPECT_EQ(read("1700000000000", 0, big), 1700000000000);
  EXPECT_EQ(read("9007199254740992", 0, big), big);
  EXPECT_EQ(read("4294967295", 0, UINT32_MAX), UINT32_MAX);
  EXPECT_EQ(read("\"7\"", 0, 10), 7);  // a string holding a number reads as that number
  EXPECT_EQ(read("4294967296", 0, UINT32_MAX), std::nullopt);
  EXPECT_EQ(read("9007199254740993", 0, big), std::nullopt);
  EXPECT_EQ(read("1e19", 0, big), std::nullopt);
  EXPECT_EQ(read("1e999999", 0, big), std::nullopt);
  EXPECT_EQ(read("0.5", 0, 100), std::nullopt);
  EXPECT_EQ(read("12.50", 0, 100), std::nullopt);
  EXPECT_EQ(read("1e-1", 0, 100), std::nullopt);
  EXPECT_EQ(read("-1", 0, 100), std::nullopt);
  EXPECT_EQ(read("true", 0, 100), std::nullopt);
  EXPECT_EQ(read("\"x1\"", 0, 100), std::nullopt);
  EXPECT_EQ(read("\"\"", 0, 100), std::nullopt);
  EXPECT_EQ(read("null", 0, 100), std::nullopt);
}

TEST(SignalRecords, BinaryAndJsonRoundTrips) {
  Party alice(1), bob(2);
  start(alice, bob);
  ASSERT_EQ(bob.receive(alice.send("1")), Error::ok);
  ASSERT_EQ(alice.receive(bob.send("2")), Error::ok);
  std::vector<EncryptResult> held;
  for (int i = 0; i < 5; i++) held.push_back(alice.send("held"));
  ASSERT_EQ(bob.receive(alice.send("skip ahead")), Error::ok);  // bob now holds 5 skipped keys
  start(alice, bob, false);                                     // alice: one closed, one open with pending
  for (const Record* r : {&alice.record, &bob.record}) {
    const std::string bin = serialized(*r);
    Record parsed;
    ASSERT_EQ(parse_record(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bin.data()), bin.size()), parsed),
              Error::ok);
    EXPECT_EQ(serialized(parsed), bin);
    std::string json;
    ASSERT_EQ(record_to_json(*r, json), Error::ok);
    Record from_json;
    ASSERT_EQ(record_from_json(json, from_json), Error::ok);
    EXPECT_EQ(serialized(from_json), bin);
    std::string json2;
    ASSERT_EQ(record_to_json(from_json, json2), Error::ok);
    EXPECT_EQ(json2, json);
  }
  // The restored record keeps working.
  Record restored;
  std::string json;
  ASSERT_EQ(record_to_json(bob.record, json), Error::ok);
  ASSERT_EQ(record_from_json(json, restored), Error::ok);
  bob.record = restored;
  for (auto& m : held) ASSERT_EQ(bob.receive(m), Error::ok);
}

TEST(SignalRecords, MalformedInputIsRejected) {
  Party alice(1), bob(2);
  start(alice, bob);
  const std::string bin = serialized(alice.record);
  Record out;
  // Each cut lives in a buffer of exactly its size, so a read past its end is a heap overflow under ASan
  // (a std::string would hide a one-byte over-read behind its terminator).
  for (size_t n = 0; n < bin.size(); n++) {
    const Bytes cut(bin.begin(), bin.begin() + static_cast<std::ptrdiff_t>(n));
    const Error e = parse_record(cut, out);
    EXPECT_TRUE(e == Error::invalid_record || (e == Error::ok && n == 0)) << n;
  }
  // Cuts inside the session message, wrapped with a length that matches the cut: the reader must notice
  // a field whose tag is the last byte of the message (the fuzzer found get_bool reading past it).
  ASSERT_GE(bin.size(), 3u);
  ASSERT_EQ(static_cast<uint8_t>(bin[0]), 0x0a);  // field 1, length-delimited: the current session
  size_t len = 0, shift = 0, at = 1;
  while (static_cast<uint8_t>(bin[at]) & 0x80) len |= size_t(bin[at++] & 0x7f) << shift, shift += 7;
  len |= size_t(static_cast<uint8_t>(bin[at++])) << shift;
  ASSERT_LE(at + len, bin.size());
  const std::string_view session(bin.data() + at, len);
  ASSERT_NE(session.find("\xc0\x06"), std::string_view::npos);  // the base_key_ours tag is in there
  for (size_t n = 0; n < len; n++) {
    Bytes wrapped{0x0a};
    for (size_t v = n; ; v >>= 7) {
      wrapped.push_back(static_cast<uint8_t>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
      if (v < 0x80) break;
    }
    wrapped.insert(wrapped.end(), session.begin(), session.begin() + static_cast<std::ptrdiff_t>(n));
    wrapped.shrink_to_fit();
    const Error e = parse_record(wrapped, out);
    EXPECT_TRUE(e == Error::invalid_record || e == Error::ok) << n;
  }
  for (std::string_view bad : {"", "[]", "{\"version\":\"v2\"}", "{\"_sessions\":{\"x\":{}},\"version\":\"v1\"}",
                               "{\"_sessions\":[],\"version\":\"v1\"} x", "{{{{{"}) {
    EXPECT_EQ(record_from_json(bad, out), Error::invalid_record) << bad;
  }
  EXPECT_EQ(record_from_json("{\"_sessions\":{},\"version\":\"v1\"}", out), Error::ok);
  EXPECT_TRUE(out.sessions.empty());
  std::string deep(100000, '[');
  EXPECT_EQ(record_from_json(deep, out), Error::invalid_record);
}

TEST(SignalRecords, TimesOutsideWhatJsonHoldsAreRejected) {
  // A binary record is accepted only if its JSON export re-imports (the fuzzer found a `used` of 2^54
  // that parsed as binary but not as JSON): times are 0..2^53, closed also -1.
  Party alice(1), bob(2);
  start(alice, bob);
  const auto parses = [&](auto set) {
    Record r = alice.record;
    set(r.sessions.front());
    const std::string bin = serialized(r);
    Record out;
    const Error e = parse_record(bytes_of(bin), out);
    if (e != Error::ok) return false;
    std::string json;
    EXPECT_EQ(record_to_json(out, json), Error::ok);
    EXPECT_EQ(record_from_json(json, out), Error::ok);
    return true;
  };
  EXPECT_TRUE(parses([](Session& s) { s.used = kMaxTime; }));
  EXPECT_TRUE(parses([](Session& s) { s.created = kMaxTime; }));
  EXPECT_TRUE(parses([](Session& s) { s.closed = kMaxTime; }));
  EXPECT_TRUE(parses([](Session& s) { s.closed = -1; }));
  EXPECT_FALSE(parses([](Session& s) { s.used = kMaxTime + 1; }));
  EXPECT_FALSE(parses([](Session& s) { s.used = -1; }));
  EXPECT_FALSE(parses([](Session& s) { s.created = kMaxTime + 1; }));
  EXPECT_FALSE(parses([](Session& s) { s.created = -1; }));
  EXPECT_FALSE(parses([](Session& s) { s.closed = kMaxTime + 1; }));
  EXPECT_FALSE(parses([](Session& s) { s.closed = -2; }));
}

TEST(SignalMessages, ParsersRejectGarbage) {
  std::mt19937 rng(42);
  WhisperMessage wm;
  PreKeyMessage pm;
  for (int i = 0; i < 20000; i++) {
    Bytes b(rng() % 120);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    if (!b.empty() && (i & 1)) b[0] = 0x33;
    (void)parse_whisper_message(b, wm);
    (void)parse_prekey_message(b, pm);
  }
  EXPECT_EQ(parse_whisper_message(Bytes{0x23, 1, 2, 3, 4, 5, 6, 7, 8, 9}, wm), Error::invalid_message);
}

}  // namespace
}  // namespace wacore::signal
