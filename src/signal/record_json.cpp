// libsignal-node's session records as JSON (its SessionRecord.serialize() output), read and written
// with RapidJSON (Debian's rapidjson-dev, header-only). Byte strings are standard base64 (libsodium).
//
// Reading then writing a record libsignal-node wrote gives back the same JSON, field for field and
// in the same order, except where our limits apply: at most kMaxReceiverChains receiving chains
// (the newest), kMaxSkippedKeysPerChain skipped keys per chain (the newest) and
// kMaxArchivedSessions closed sessions (the most recently closed).
#include <sodium.h>

#include <charconv>
#include <cstring>
#include <string_view>

#include "signal/json_common.h"
#include "signal/session.h"

namespace wacore::signal {
namespace {

using json::Value;


template <size_t N>
bool b64_fixed(const Value& v, std::array<uint8_t, N>& out) {
  return json::b64_fixed(&v, out);
}

bool public_key(const Value& v, PublicKey& out) { return b64_fixed(v, out) && out[0] == 0x05; }

using json::integer;

const Value* member(const Value& obj, const char* name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

// A present, non-null member.
const Value* field(const Value& obj, const char* name) {
  const Value* v = member(obj, name);
  return v == nullptr || v->IsNull() ? nullptr : v;
}

bool int_field(const Value& obj, const char* name, int64_t lo, int64_t hi, int64_t& out) {
  const Value* v = field(obj, name);
  return v != nullptr && integer(*v, lo, hi, out);
}

bool read_chain(const Value& v, Chain& c, int& type) {
  const Value* ck = field(v, "chainKey");
  int64_t t = 0;
  if (ck == nullptr || !int_field(v, "chainType", 1, 2, t)) return false;
  type = static_cast<int>(t);
  if (!int_field(*ck, "counter", -1, UINT32_MAX, c.counter)) return false;
  if (const Value* key = field(*ck, "key"); key != nullptr) {
    if (!b64_fixed(*key, c.key)) return false;
    c.has_key = true;
  }
  if (const Value* mks = field(v, "messageKeys"); mks != nullptr) {
    if (!mks->IsObject()) return false;
    for (auto it = mks->MemberBegin(); it != mks->MemberEnd(); ++it) {
      std::string_view idx(it->name.GetString(), it->name.GetStringLength());
      if (idx.empty() || idx.size() > 10 || (idx.size() > 1 && idx[0] == '0')) return false;
      uint64_t n = 0;
      for (char ch : idx) {
        if (ch < '0' || ch > '9') return false;
        n = n * 10 + static_cast<uint64_t>(ch - '0');
      }
      if (n > UINT32_MAX) return false;
      MessageKey& mk = c.skipped.emplace_back();
      mk.index = static_cast<uint32_t>(n);
      if (!b64_fixed(it->value, mk.seed)) return false;
    }
  }
  return true;
}

bool read_session(const Value& v, Session& s) {
  if (!v.IsObject()) return false;
  int64_t n = 0;
  if (const Value* reg = field(v, "registrationId"); reg != nullptr) {
    if (!integer(*reg, 0, UINT32_MAX, n)) return false;
    s.has_registration_id = true;
    s.registration_id = static_cast<uint32_t>(n);
  }
  const Value* cr = field(v, "currentRatchet");
  const Value* ii = field(v, "indexInfo");
  if (cr == nullptr || ii == nullptr) return false;
  const Value* ekp = field(*cr, "ephemeralKeyPair");
  const Value* pub = ekp == nullptr ? nullptr : field(*ekp, "pubKey");
  const Value* priv = ekp == nullptr ? nullptr : field(*ekp, "privKey");
  if (pub == nullptr || priv == nullptr || !public_key(*pub, s.ratchet.pub) || !b64_fixed(*priv, s.ratchet.priv)) {
    return false;
  }
  const Value* lre = field(*cr, "lastRemoteEphemeralKey");
  const Value* root = field(*cr, "rootKey");
  if (lre == nullptr || root == nullptr || !public_key(*lre, s.last_remote_ratchet) || !b64_fixed(*root, s.root_key)) {
    return false;
  }
  if (!int_field(*cr, "previousCounter", -1, UINT32_MAX, s.previous_counter)) return false;

  const Value* base = field(*ii, "baseKey");
  const Value* rik = field(*ii, "remoteIdentityKey");
  if (base == nullptr || rik == nullptr || !public_key(*base, s.base_key) || !public_key(*rik, s.remote_identity)) {
    return false;
  }
  if (!int_field(*ii, "baseKeyType", 1, 2, n)) return false;
  s.base_key_ours = n == 1;
  if (!int_field(*ii, "closed", -1, kMaxTime, s.closed)) return false;
  // used and created are Date.now() values; a missing one reads as 0.
  if (field(*ii, "used") != nullptr && !int_field(*ii, "used", 0, kMaxTime, s.used)) return false;
  if (field(*ii, "created") != nullptr && !int_field(*ii, "created", 0, kMaxTime, s.created)) return false;

  if (const Value* chains = field(v, "_chains"); chains != nullptr) {
    if (!chains->IsObject()) return false;
    for (auto it = chains->MemberBegin(); it != chains->MemberEnd(); ++it) {
      Chain c;
      int type = 0;
      if (!b64_fixed(it->name, c.ratchet_key) || c.ratchet_key[0] != 0x05 || !read_chain(it->value, c, type)) {
        return false;
      }
      if (type == 1) {
        // One sending chain, on our current ratchet key (libsignal-node keeps no other).
        if (s.has_sender || c.ratchet_key != s.ratchet.pub) return false;
        s.sender = std::move(c);
        s.has_sender = true;
      } else {
        s.receivers.push_back(std::move(c));
      }
    }
  }
  if (const Value* ppk = field(v, "pendingPreKey"); ppk != nullptr) {
    const Value* pbase = field(*ppk, "baseKey");
    if (pbase == nullptr || !public_key(*pbase, s.pending.base_key)) return false;
    if (!int_field(*ppk, "signedKeyId", 0, UINT32_MAX, n)) return false;
    s.pending.signed_prekey_id = static_cast<uint32_t>(n);
    if (const Value* pid = field(*ppk, "preKeyId"); pid != nullptr) {
      if (!integer(*pid, 0, UINT32_MAX, n)) return false;
      s.pending.has_prekey_id = true;
      s.pending.prekey_id = static_cast<uint32_t>(n);
    }
    s.has_pending = true;
  }
  return true;
}

bool read_record(std::string_view json, Record& out) {
  json::Document doc;
  // Iterative: nesting depth costs heap, not stack. Anything after the root value is an error.
  doc.Parse<json::kParseFlags>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return false;
  const Value* version = field(doc, "version");
  uint32_t migrated_registration = 0;
  bool migrate = false;
  if (version == nullptr) {
    // Unversioned records: libsignal-node's v1 migration moves a top-level registrationId into
    // the sessions that lack one.
    int64_t reg = 0;
    if (int_field(doc, "registrationId", 1, UINT32_MAX, reg)) {
      migrate = true;
      migrated_registration = static_cast<uint32_t>(reg);
    }
  } else if (!version->IsString() || std::string_view(version->GetString(), version->GetStringLength()) != "v1") {
    return false;
  }
  Record rec;
  if (const Value* sessions = field(doc, "_sessions"); sessions != nullptr) {
    if (!sessions->IsObject()) return false;
    size_t open = 0;
    for (auto it = sessions->MemberBegin(); it != sessions->MemberEnd(); ++it) {
      Session& s = rec.sessions.emplace_back();
      if (!read_session(it->value, s)) return false;
      if (migrate && !s.has_registration_id) {
        s.has_registration_id = true;
        s.registration_id = migrated_registration;
      }
      if (s.open() && ++open > 1) return false;
    }
  }
  enforce_limits(rec);
  out = std::move(rec);
  return true;
}

using Writer = rapidjson::Writer<json::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>, json::Allocator>;

void key(Writer& w, const char* k) { w.Key(k); }

void write_chain(Writer& w, const Chain& c, int type) {
  json::write_b64(w, c.ratchet_key);  // the member name: rapidjson writes it as a key
  w.StartObject();
  key(w, "chainKey");
  w.StartObject();
  key(w, "counter");
  w.Int64(c.counter);
  if (c.has_key) {
    key(w, "key");
    json::write_b64(w, c.key);
  }
  w.EndObject();
  key(w, "chainType");
  w.Int(type);
  key(w, "messageKeys");
  w.StartObject();
  for (const MessageKey& mk : c.skipped) {
    if (!mk.has_seed) continue;  // libsignal-node has no form for derived-only keys
    char idx[16];
    const auto end = std::to_chars(idx, idx + sizeof idx, mk.index).ptr;
    w.Key(idx, static_cast<rapidjson::SizeType>(end - idx));
    json::write_b64(w, mk.seed);
  }
  w.EndObject();
  w.EndObject();
}

void write_session(Writer& w, const Session& s) {
  w.StartObject();
  if (s.has_registration_id) {
    key(w, "registrationId");
    w.Uint(s.registration_id);
  }
  key(w, "currentRatchet");
  w.StartObject();
  key(w, "ephemeralKeyPair");
  w.StartObject();
  key(w, "pubKey");
  json::write_b64(w, s.ratchet.pub);
  key(w, "privKey");
  json::write_b64(w, s.ratchet.priv);
  w.EndObject();
  key(w, "lastRemoteEphemeralKey");
  json::write_b64(w, s.last_remote_ratchet);
  key(w, "previousCounter");
  w.Int64(s.previous_counter);
  key(w, "rootKey");
  json::write_b64(w, s.root_key);
  w.EndObject();
  key(w, "indexInfo");
  w.StartObject();
  key(w, "baseKey");
  json::write_b64(w, s.base_key);
  key(w, "baseKeyType");
  w.Int(s.base_key_ours ? 1 : 2);
  key(w, "closed");
  w.Int64(s.closed);
  key(w, "used");
  w.Int64(s.used);
  key(w, "created");
  w.Int64(s.created);
  key(w, "remoteIdentityKey");
  json::write_b64(w, s.remote_identity);
  w.EndObject();
  key(w, "_chains");
  w.StartObject();
  for (const Chain& c : s.receivers) write_chain(w, c, 2);
  if (s.has_sender) write_chain(w, s.sender, 1);
  w.EndObject();
  if (s.has_pending) {
    key(w, "pendingPreKey");
    w.StartObject();
    key(w, "signedKeyId");
    w.Uint(s.pending.signed_prekey_id);
    key(w, "baseKey");
    json::write_b64(w, s.pending.base_key);
    if (s.pending.has_prekey_id) {
      key(w, "preKeyId");
      w.Uint(s.pending.prekey_id);
    }
    w.EndObject();
  }
  w.EndObject();
}

}  // namespace

Error record_from_json(std::string_view json, Record& out) {
  return read_record(json, out) ? Error::ok : Error::invalid_record;
}

Error record_to_json(const Record& record, std::string& out) {
  json::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  key(w, "_sessions");
  w.StartObject();
  for (const Session& s : record.sessions) {
    json::write_b64(w, s.base_key);
    write_session(w, s);
  }
  w.EndObject();
  key(w, "version");
  w.String("v1");
  w.EndObject();
  out.assign(sb.GetString(), sb.GetSize());
  // The buffer held private and chain keys.
  sodium_memzero(const_cast<char*>(sb.GetString()), sb.GetSize());
  return Error::ok;
}

}  // namespace wacore::signal
