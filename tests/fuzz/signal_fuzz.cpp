// libFuzzer targets for Signal 1:1 sessions (src/signal/session.h), run by scripts/fuzz.sh.
//
// Built twice from this file:
//  - SIGNAL_FUZZ_PARSE: one input is a WhisperMessage, a PreKeyWhisperMessage, a binary record and
//    a JSON record at once. Parsers never crash; a record that parses re-serializes to bytes that
//    parse again to the same bytes (binary) and the same JSON.
//  - otherwise (stateful): the input is a script of operations between two parties — send either
//    way, deliver any queued message (again, out of order), drop, corrupt a bit, snapshot a party's
//    record and restore it later, round-trip a record through both formats. Properties: whatever
//    decrypts equals what was sent; a corrupted message never decrypts to anything else; a failed
//    decrypt leaves the record byte-identical; a genuine message delivered for the first time to a
//    party that was never rolled back decrypts, while its chain is within the limits.
// Randomness comes from a generator seeded by the input, so every failure replays.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "common/random.h"
#include "crypto/curve25519.h"
#include "signal/session.h"

namespace {

using namespace wacore;
using namespace wacore::signal;
using Bytes = std::vector<uint8_t>;

[[noreturn]] void violated() { __builtin_trap(); }
void require(bool ok) {
  if (!ok) violated();
}

std::span<const uint8_t> span_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string serialized(const Record& r) {
  std::string out;
  require(serialize_record(r, out) == Error::ok);
  return out;
}

#ifdef SIGNAL_FUZZ_PARSE

void check_record(const Record& r) {
  const std::string bin = serialized(r);
  Record again;
  require(parse_record(span_of(bin), again) == Error::ok);
  require(serialized(again) == bin);
  std::string json, json2;
  require(record_to_json(r, json) == Error::ok);
  Record from_json;
  require(record_from_json(json, from_json) == Error::ok);
  require(record_to_json(from_json, json2) == Error::ok);
  require(json == json2);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  WhisperMessage wm;
  if (parse_whisper_message(in, wm) == Error::ok) {
    require(wm.mac.size() == kMacBytes && wm.signed_part.size() + kMacBytes == in.size());
  }
  PreKeyMessage pm;
  if (parse_prekey_message(in, pm) == Error::ok) (void)parse_whisper_message(pm.message, wm);
  Record r;
  if (parse_record(in, r) == Error::ok) check_record(r);
  Record j;
  if (record_from_json(std::string_view(reinterpret_cast<const char*>(data), size), j) == Error::ok) check_record(j);
  return 0;
}

#else

// xorshift64*: deterministic randomness for key generation and signatures.
uint64_t g_rng = 1;
int fuzz_random(uint8_t* buf, size_t n) noexcept {
  for (size_t i = 0; i < n; i++) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    buf[i] = static_cast<uint8_t>((g_rng * 0x2545F4914F6CDD1DULL) >> 56);
  }
  return 0;
}

KeyPair key_pair() {
  KeyPair kp;
  kp.pub[0] = 0x05;
  require(curve::generate_key_pair(kp.priv.data(), kp.pub.data() + 1) == Error::ok);
  return kp;
}

struct Message {
  int from;
  EncryptResult sent;
  std::string text;
  int direction_changes;  // at sending time
  bool delivered = false;
};

struct Party {
  KeyPair identity = key_pair();
  KeyPair signed_prekey = key_pair();
  KeyPair prekey = key_pair();
  bool prekey_used = false;
  Record record;
  std::string snapshot;
  bool has_snapshot = false;
  bool rolled_back = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  g_rng = 0x9E3779B97F4A7C15ULL ^ data[0];
  set_random_source(&fuzz_random);
  Party p[2];
  int64_t clock = 1'700'000'000'000;

  PreKeyBundle bundle;
  bundle.registration_id = 2;
  bundle.identity = p[1].identity.pub;
  bundle.signed_prekey_id = 1;
  bundle.signed_prekey = p[1].signed_prekey.pub;
  require(curve::sign(p[1].identity.priv.data(), p[1].signed_prekey.pub, bundle.signature.data()) == Error::ok);
  bundle.has_prekey = (data[0] & 1) != 0;
  bundle.prekey_id = 9;
  bundle.prekey = p[1].prekey.pub;
  require(init_outgoing(p[0].record, p[0].identity, bundle, clock) == Error::ok);

  std::vector<Message> queue;
  int last_sender = 0, direction_changes = 0, counter = 0;
  bool bob_can_send = false;  // Bob can send once he has received Alice's first message

  for (size_t i = 1; i + 1 < size && queue.size() < 64; i += 2) {
    const uint8_t op = data[i] % 8;
    const uint8_t arg = data[i + 1];
    clock += 1000;
    switch (op) {
      case 0:
      case 1: {  // send
        const int from = op == 1 && bob_can_send ? 1 : 0;
        if (from != last_sender) direction_changes++;
        last_sender = from;
        Message m{from, {}, "m" + std::to_string(counter++), direction_changes};
        const Bytes pt(m.text.begin(), m.text.end());
        const Error e = encrypt(p[from].record, p[from].identity.pub, from == 0 ? 1 : 2, pt, m.sent);
        if (e != Error::ok) {
          // Only a party rolled back to before it could send has nothing to send with.
          require(e == Error::no_session && p[from].rolled_back);
          break;
        }
        queue.push_back(std::move(m));
        break;
      }
      case 2:
      case 3:
      case 4: {  // deliver (op 4: with one bit flipped)
        if (queue.empty()) break;
        Message& m = queue[arg % queue.size()];
        Party& to = p[1 - m.from];
        EncryptResult msg = m.sent;
        const bool corrupt = op == 4;
        if (corrupt) msg.body[(arg * 7u) % msg.body.size()] ^= static_cast<uint8_t>(1u << (arg % 8));
        const std::string before = serialized(to.record);
        DecryptResult out;
        Error e;
        if (msg.type == kTypePreKey) {
          e = decrypt_prekey(to.record, to.identity, msg.body, &to.signed_prekey, to.prekey_used ? nullptr : &to.prekey,
                             clock, out);
          if (e == Error::ok && out.prekey_used) to.prekey_used = true;
        } else {
          e = decrypt_whisper(to.record, to.identity.pub, msg.body, clock, out);
        }
        if (e == Error::ok) {
          // Whatever decrypts is what was sent (a flipped unauthenticated bit, such as the
          // registration id of a PreKey message, may still decrypt: to the same text).
          require(std::string(out.plaintext.begin(), out.plaintext.end()) == m.text);
          m.delivered = true;  // its key is used up, however the bytes were altered
          if (m.from == 0) bob_can_send = true;
        } else {
          require(serialized(to.record) == before);
          const bool must_work = !corrupt && !m.delivered && !to.rolled_back && !p[m.from].rolled_back &&
                                 direction_changes - m.direction_changes < 4 &&
                                 !(msg.type == kTypePreKey && to.prekey_used && bundle.has_prekey);
          require(!must_work);
        }
        break;
      }
      case 5: {  // drop
        if (!queue.empty()) queue.erase(queue.begin() + arg % queue.size());
        break;
      }
      case 6: {  // snapshot or restore
        Party& party = p[arg & 1];
        if (!party.has_snapshot || (arg & 2)) {
          party.snapshot = serialized(party.record);
          party.has_snapshot = true;
        } else {
          Record r;
          require(parse_record(span_of(party.snapshot), r) == Error::ok);
          party.record = std::move(r);
          party.rolled_back = true;
        }
        break;
      }
      case 7: {  // round trip through JSON and binary
        Party& party = p[arg & 1];
        std::string json;
        require(record_to_json(party.record, json) == Error::ok);
        Record r;
        require(record_from_json(json, r) == Error::ok);
        const std::string bin = serialized(r);
        require(bin == serialized(party.record));
        Record r2;
        require(parse_record(span_of(bin), r2) == Error::ok);
        party.record = std::move(r2);
        break;
      }
    }
  }
  set_random_source(nullptr);
  return 0;
}

#endif
