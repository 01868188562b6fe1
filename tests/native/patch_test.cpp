// App-state patches: decoding, verification of a snapshot and of patches (SET, overwrite, REMOVE)
// against a running state, every single-bit corruption rejected with the state unchanged.
#include <gtest/gtest.h>
#include <sodium.h>

#include <protozero/pbf_writer.hpp>
#include <string>

#include "appstate/patch.h"
#include "test_util.h"

namespace wacore::appstate {
namespace {

using Bytes = std::vector<uint8_t>;
using protozero::pbf_writer;

Bytes bytes_of(std::string_view s) { return Bytes(s.begin(), s.end()); }
void add(pbf_writer& w, uint32_t f, const Bytes& b) { w.add_bytes(f, reinterpret_cast<const char*>(b.data()), b.size()); }

struct Mut {
  Operation op;
  Bytes index_mac, blob, key_id;
};

// Builds mutations, snapshots and patches with the core's MAC and encryption functions.
struct Server {
  Bytes key_data = Bytes(32, 0x42);
  Bytes key_id = bytes_of("key-1");
  MutationKeys keys{};
  LtHashState state;  // what the server believes
  std::string name = "regular_high";
  Server() { expand_keys(key_data, keys); }

  Mut mutation(Operation op, std::string_view index_json, std::string_view value) {
    std::string data;
    {
      pbf_writer w{data};
      w.add_bytes(1, index_json.data(), index_json.size());
      w.add_bytes(2, value.data(), value.size());
      w.add_bytes(3, "");
      w.add_int32(4, 7);
    }
    Mut m{op, Bytes(32), Bytes(encrypted_value_size(data.size())), key_id};
    uint8_t iv[kIvBytes];
    randombytes_buf(iv, sizeof iv);
    encrypt_value(keys, op, key_id, {reinterpret_cast<const uint8_t*>(data.data()), data.size()}, iv, m.blob.data());
    index_mac(keys.index, bytes_of(index_json), m.index_mac.data());
    return m;
  }

  // Applies to the server's own state as the protocol says.
  void apply(const std::vector<Mut>& ms) {
    Bytes adds, subs;
    for (const Mut& m : ms) {
      auto it = std::find_if(state.values.begin(), state.values.end(), [&](const IndexValue& v) {
        return std::equal(m.index_mac.begin(), m.index_mac.end(), v.index_mac.begin());
      });
      if (it != state.values.end()) {
        subs.insert(subs.end(), it->value_mac.begin(), it->value_mac.end());
        state.values.erase(it);
      }
      if (m.op == Operation::set) {
        IndexValue v;
        std::copy(m.index_mac.begin(), m.index_mac.end(), v.index_mac.begin());
        std::copy(m.blob.end() - 32, m.blob.end(), v.value_mac.begin());
        adds.insert(adds.end(), m.blob.end() - 32, m.blob.end());
        state.values.push_back(v);
      }
    }
    lthash_subtract_then_add(state.hash.data(), adds, subs);
  }

  static void write_record(pbf_writer& w, uint32_t field, const Mut& m) {
    pbf_writer r{w, field};
    { pbf_writer i{r, 1}; add(i, 1, m.index_mac); }
    { pbf_writer v{r, 2}; add(v, 1, m.blob); }
    { pbf_writer k{r, 3}; add(k, 1, m.key_id); }
  }

  Bytes snapshot(uint64_t version, const std::vector<Mut>& ms) {
    state = LtHashState{};
    apply(ms);
    state.version = version;
    std::string out;
    pbf_writer w{out};
    { pbf_writer v{w, 1}; v.add_uint64(1, version); }
    for (const Mut& m : ms) write_record(w, 2, m);
    Bytes mac(32);
    snapshot_mac(state.hash.data(), version, name, keys.snapshot_mac, mac.data());
    add(w, 3, mac);
    { pbf_writer k{w, 4}; add(k, 1, key_id); }
    return Bytes(out.begin(), out.end());
  }

  Bytes patch(uint64_t version, const std::vector<Mut>& ms) {
    apply(ms);
    state.version = version;
    Bytes smac(32), pmac(32), vmacs;
    snapshot_mac(state.hash.data(), version, name, keys.snapshot_mac, smac.data());
    for (const Mut& m : ms) vmacs.insert(vmacs.end(), m.blob.end() - 32, m.blob.end());
    patch_mac(smac.data(), vmacs, version, name, keys.patch_mac, pmac.data());
    std::string out;
    pbf_writer w{out};
    { pbf_writer v{w, 1}; v.add_uint64(1, version); }
    for (const Mut& m : ms) {
      pbf_writer mw{w, 2};
      mw.add_enum(1, static_cast<int32_t>(m.op));
      write_record(mw, 2, m);
    }
    add(w, 4, smac);
    add(w, 5, pmac);
    { pbf_writer k{w, 6}; add(k, 1, key_id); }
    return Bytes(out.begin(), out.end());
  }

  std::vector<KeyEntry> key_list() const { return {KeyEntry{key_id, keys}}; }
};

Error verify_patch_bytes(LtHashState& state, const Bytes& bytes, const Server& s, VerifyResult& r,
                         VerifyOptions opt = {}) {
  SyncdPatch p;
  if (Error e = decode_patch(bytes, p); e != Error::ok) return e;
  const auto keys = s.key_list();
  return verify_patch(state, p, s.name, keys, opt, r);
}

Error verify_snapshot_bytes(LtHashState& state, const Bytes& bytes, const Server& s, VerifyResult& r) {
  SyncdSnapshot snap;
  if (Error e = decode_snapshot(bytes, snap); e != Error::ok) return e;
  const auto keys = s.key_list();
  return verify_snapshot(snap, s.name, keys, state, r);
}

bool same(const LtHashState& a, const LtHashState& b) {
  if (a.version != b.version || a.hash != b.hash || a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); i++) {
    if (a.values[i].index_mac != b.values[i].index_mac || a.values[i].value_mac != b.values[i].value_mac) return false;
  }
  return true;
}

TEST(SyncdPatch, SnapshotThenPatchesWithSetOverwriteAndRemoveVerifyEndToEnd) {
  Server server;
  const Mut a = server.mutation(Operation::set, R"(["mute","1@s.whatsapp.net"])", "A");
  const Mut b = server.mutation(Operation::set, R"(["pin_v1","2@s.whatsapp.net"])", "B");
  const Mut c = server.mutation(Operation::set, R"(["archive","3@s.whatsapp.net"])", "C");
  const Bytes snap = server.snapshot(5, {a, b, c});
  LtHashState state;
  VerifyResult r;
  ASSERT_EQ(verify_snapshot_bytes(state, snap, server, r), Error::ok);
  EXPECT_EQ(state.hash, server.state.hash);
  EXPECT_EQ(state.version, 5u);
  EXPECT_EQ(r.mutations.size(), 3u);

  // Patch 6: a new index, an overwrite of a, a REMOVE of b.
  const Mut d = server.mutation(Operation::set, R"(["star","4@s.whatsapp.net","ABC","1","0"])", "D");
  const Mut a2 = server.mutation(Operation::set, R"(["mute","1@s.whatsapp.net"])", "A2");
  const Mut b_rm = server.mutation(Operation::remove, R"(["pin_v1","2@s.whatsapp.net"])", "");
  const Bytes p6 = server.patch(6, {d, a2, b_rm});
  ASSERT_EQ(verify_patch_bytes(state, p6, server, r), Error::ok);
  EXPECT_EQ(state.hash, server.state.hash);
  EXPECT_EQ(state.version, 6u);
  EXPECT_EQ(state.values.size(), 3u);
  EXPECT_EQ(r.removes_without_set, 0u);
  SyncActionData action;
  ASSERT_EQ(decode_sync_action_data(r.mutations[1].data, action), Error::ok);
  EXPECT_EQ(std::string(action.value.begin(), action.value.end()), "A2");

  // Patch 7 removes c and d.
  const Bytes p7 = server.patch(7, {server.mutation(Operation::remove, R"(["archive","3@s.whatsapp.net"])", ""),
                                    server.mutation(Operation::remove, R"(["star","4@s.whatsapp.net","ABC","1","0"])", "")});
  ASSERT_EQ(verify_patch_bytes(state, p7, server, r), Error::ok);
  EXPECT_EQ(state.hash, server.state.hash);
  EXPECT_EQ(state.values.size(), 1u);
}

TEST(SyncdPatch, EverySingleBitCorruptionIsRejectedAndTheStateKept) {
  Server server;
  const Bytes snap = server.snapshot(1, {server.mutation(Operation::set, R"(["a"])", "1"),
                                         server.mutation(Operation::set, R"(["b"])", "2")});
  LtHashState state;
  VerifyResult r;
  for (size_t bit = 0; bit < snap.size() * 8; bit++) {
    Bytes bad = snap;
    bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    LtHashState s;
    EXPECT_NE(verify_snapshot_bytes(s, bad, server, r), Error::ok) << "snapshot bit " << bit;
  }
  ASSERT_EQ(verify_snapshot_bytes(state, snap, server, r), Error::ok);
  const Bytes patch = server.patch(2, {server.mutation(Operation::set, R"(["c"])", "3"),
                                       server.mutation(Operation::remove, R"(["a"])", "")});
  const LtHashState before = state;
  LtHashState expected = state;
  ASSERT_EQ(verify_patch_bytes(expected, patch, server, r), Error::ok);
  EXPECT_EQ(expected.hash, server.state.hash);
  // A flip may turn the explicit "operation = SET (0)" field into an unknown field, which decodes
  // to the same default SET: the same patch, accepted with the same result. Every other flip fails
  // and leaves the state as it was.
  size_t same_meaning = 0;
  for (size_t bit = 0; bit < patch.size() * 8; bit++) {
    Bytes bad = patch;
    bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    LtHashState s = state;
    if (verify_patch_bytes(s, bad, server, r) == Error::ok) {
      EXPECT_TRUE(same(s, expected)) << "patch bit " << bit;
      SyncdPatch p;
      ASSERT_EQ(decode_patch(bad, p), Error::ok);
      EXPECT_EQ(p.mutations[0].operation, Operation::set) << "patch bit " << bit;
      same_meaning++;
    } else {
      ASSERT_TRUE(same(s, before)) << "patch bit " << bit;
    }
  }
  EXPECT_LE(same_meaning, 8u);  // only bits of the SET mutation's operation tag byte
}

TEST(SyncdPatch, NamesTheFailingCheck) {
  Server server;
  LtHashState state;
  VerifyResult r;
  ASSERT_EQ(verify_snapshot_bytes(state, server.snapshot(1, {server.mutation(Operation::set, "[1]", "x")}), server, r),
            Error::ok);
  const Bytes p = server.patch(2, {server.mutation(Operation::set, "[2]", "y")});
  // Another collection name: the patch MAC fails first.
  Server other = server;
  other.name = "regular_low";
  EXPECT_EQ(verify_patch_bytes(state, p, other, r), Error::patch_mac);
  // An unknown key id.
  Server nokey = server;
  nokey.key_id = bytes_of("other");
  EXPECT_EQ(verify_patch_bytes(state, p, nokey, r), Error::missing_key);
  // A state that is not the server's: the snapshot MAC after applying fails.
  LtHashState wrong = state;
  wrong.hash[0] ^= 1;
  EXPECT_EQ(verify_patch_bytes(wrong, p, server, r), Error::snapshot_mac);
}

TEST(SyncdPatch, RemoveWithoutPriorSetIsCountedOrRejectedInStrictMode) {
  Server server;
  LtHashState state;
  VerifyResult r;
  ASSERT_EQ(verify_snapshot_bytes(state, server.snapshot(1, {}), server, r), Error::ok);
  const Bytes p = server.patch(2, {server.mutation(Operation::remove, R"(["never set"])", "")});
  VerifyOptions strict;
  strict.strict_remove = true;
  const LtHashState before = state;
  EXPECT_EQ(verify_patch_bytes(state, p, server, r, strict), Error::remove_without_set);
  EXPECT_TRUE(same(state, before));
  ASSERT_EQ(verify_patch_bytes(state, p, server, r), Error::ok);
  EXPECT_EQ(r.removes_without_set, 1u);
  EXPECT_EQ(state.hash, server.state.hash);
}

TEST(SyncdPatch, DecodesTruncatedAndGarbageInputAsErrors) {
  Server server;
  const Bytes p = server.patch(3, {server.mutation(Operation::set, "[1]", "x")});
  for (size_t n = 1; n < p.size(); n++) {
    SyncdPatch out;
    const Error e = decode_patch({p.data(), n}, out);
    if (e == Error::ok) {  // a cut at a field boundary decodes but cannot verify
      LtHashState s;
      VerifyResult r;
      EXPECT_NE(verify_patch(s, out, server.name, server.key_list(), {}, r), Error::ok);
    } else {
      EXPECT_EQ(e, Error::invalid_patch);
    }
  }
  const uint8_t op2[] = {0x12, 0x02, 0x08, 0x02};  // operation 2 does not exist
  SyncdPatch out;
  EXPECT_EQ(decode_patch(op2, out), Error::invalid_patch);
}

}  // namespace
}  // namespace wacore::appstate
