// libFuzzer target for the sender-key parsers and the app-state patch decoder (src/signal/
// sender_keys*.cpp, src/appstate/patch*.cpp), run by scripts/fuzz.sh groups.
//
// The first byte picks what the rest of the input is:
//   0: a length byte n, n bytes of SenderKeyDistributionMessage, then a SenderKeyMessage. The
//      distribution message (when it parses) is processed into a fresh receiver record, else a fixed
//      one is used; the message is decrypted with it. Carrying the sender's key in the input lets a
//      seed (tests/fuzz/make-groups-corpus.mjs) reach the signature check, key derivation and
//      padding. Properties: no crash; any success yields a record that round-trips; a failure
//      leaves the record byte-identical.
//   1: a SenderKeyDistributionMessage: parse, and on success process into a record and round-trip
//      it through both record formats.
//   2: a sender-key record (protobuf) and 3: a Baileys JSON record: parse; on success the record
//      writes, reads back and writes again to the same bytes.
//   4: a SyncdPatch and 5: a SyncdSnapshot, decoded and verified against an empty state with a
//      fixed key (key id "k", key data 07 00..00: the seeds are made with it, so they verify);
//      nothing may crash, and a verified patch's state has one value per index; 6: SyncdMutations.
// ASan and UBSan watch every call, protozero's exception paths included.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "appstate/patch.h"
#include "signal/sender_keys.h"

namespace {

using wacore::Error;
namespace sig = wacore::signal;
namespace as = wacore::appstate;

void require(bool ok) {
  if (!ok) __builtin_trap();
}

std::string bin(const sig::SenderKeyRecord& r) {
  std::string s;
  sig::serialize_sender_key_record(r, s);
  return s;
}

void round_trips(const sig::SenderKeyRecord& r) {
  const std::string b = bin(r);
  sig::SenderKeyRecord again;
  require(sig::parse_sender_key_record({reinterpret_cast<const uint8_t*>(b.data()), b.size()}, again) == Error::ok);
  require(bin(again) == b);
  std::string json;
  sig::sender_key_record_to_json(r, json);
  sig::SenderKeyRecord from_json;
  require(sig::sender_key_record_from_json(json, from_json) == Error::ok);
  require(bin(from_json) == b);
}

// A state holds each index MAC once, sorted (what normalize_state checks on input).
bool sorted_unique(const as::LtHashState& s) {
  for (size_t i = 1; i < s.values.size(); i++) {
    if (!(s.values[i - 1].index_mac < s.values[i].index_mac)) return false;
  }
  return true;
}

struct Setup {
  sig::SenderKeyRecord receiver;
  as::MutationKeys keys{};
  std::vector<uint8_t> key_id{'k'};
  Setup() {
    sig::SenderKeyRecord sender;
    sig::SenderKeyDistribution d;
    require(sig::create_sender_key(sender, d) == Error::ok);
    sig::process_distribution(receiver, d);
    const uint8_t data[32] = {7};
    as::expand_keys(data, keys);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Setup setup;
  if (size == 0) return 0;
  const std::span<const uint8_t> in{data + 1, size - 1};
  switch (data[0] % 7) {
    case 0: {
      sig::SenderKeyRecord r = setup.receiver;
      std::span<const uint8_t> msg = in;
      if (!in.empty() && in[0] < in.size()) {
        sig::SenderKeyDistribution d;
        if (sig::parse_distribution(in.subspan(1, in[0]), d) == Error::ok) {
          r = {};
          sig::process_distribution(r, d);
        }
        msg = in.subspan(1 + size_t{in[0]});
      }
      const std::string before = bin(r);
      std::vector<uint8_t> pt;
      if (sig::group_decrypt(r, msg, pt) == Error::ok) {
        round_trips(r);
      } else {
        require(bin(r) == before);
      }
      break;
    }
    case 1: {
      sig::SenderKeyDistribution d;
      if (sig::parse_distribution(in, d) == Error::ok) {
        sig::SenderKeyRecord r = setup.receiver;
        sig::process_distribution(r, d);
        require(r.states.size() <= sig::kMaxSenderKeyStates);
        round_trips(r);
      }
      break;
    }
    case 2: {
      sig::SenderKeyRecord r;
      if (sig::parse_sender_key_record(in, r) == Error::ok) round_trips(r);
      break;
    }
    case 3: {
      sig::SenderKeyRecord r;
      if (sig::sender_key_record_from_json({reinterpret_cast<const char*>(in.data()), in.size()}, r) == Error::ok) {
        round_trips(r);
      }
      break;
    }
    case 4: {
      as::SyncdPatch p;
      if (as::decode_patch(in, p) == Error::ok) {
        as::LtHashState state;
        as::VerifyResult result;
        const as::KeyEntry k{setup.key_id, setup.keys};
        if (as::verify_patch(state, p, "regular", {&k, 1}, {}, result) == Error::ok) {
          require(sorted_unique(state));
        } else {
          require(state.version == 0 && state.values.empty());
        }
      }
      break;
    }
    case 5: {
      as::SyncdSnapshot s;
      if (as::decode_snapshot(in, s) == Error::ok) {
        as::LtHashState state;
        as::VerifyResult result;
        const as::KeyEntry k{setup.key_id, setup.keys};
        if (as::verify_snapshot(s, "regular", {&k, 1}, state, result) == Error::ok) require(sorted_unique(state));
      }
      break;
    }
    default: {
      std::vector<as::SyncdMutation> ms;
      (void)as::decode_mutations(in, ms);
      break;
    }
  }
  return 0;
}
