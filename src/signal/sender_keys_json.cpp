// Baileys' sender-key records as JSON (its SenderKeyRecord.serialize(): an array of
// SenderKeyStateStructure objects, oldest first), read and written with RapidJSON. Byte fields are
// standard base64 (what protobufjs's toJSON gives; the JS layer turns Buffers and BufferJSON's
// {type:'Buffer', data} objects into that form before calling in).
//
// Reading then writing gives the same states, field for field, in the same order, except where our
// limits apply (kMaxSenderKeyStates newest states, kMaxSenderMessageKeys newest skipped keys).
// Members the format does not define are ignored, and so are skipped-key entries with neither
// iteration nor seed (what Baileys 6's own JSON stores hold after a round trip, see read_state).
#include <sodium.h>


#include "signal/json_common.h"
#include "signal/sender_keys.h"

namespace wacore::signal {
namespace {

using json::Value;

using json::b64_fixed;

// A present, non-null member.
const Value* field(const Value& obj, const char* name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}

bool u32(const Value* v, uint32_t& out) {
  int64_t n = 0;
  if (v == nullptr || !json::integer(*v, 0, UINT32_MAX, n)) return false;
  out = static_cast<uint32_t>(n);
  return true;
}

bool read_state(const Value& v, SenderKeyState& s) {
  const Value* chain = field(v, "senderChainKey");
  const Value* signing = field(v, "senderSigningKey");
  if (!u32(field(v, "senderKeyId"), s.key_id) || chain == nullptr || signing == nullptr) return false;
  // protobufjs leaves a zero iteration out of toJSON: a missing one is 0.
  if (const Value* it = field(*chain, "iteration"); it != nullptr && !u32(it, s.iteration)) return false;
  if (!b64_fixed(field(*chain, "seed"), s.chain_key)) return false;
  if (!b64_fixed(field(*signing, "public"), s.signing_public) || s.signing_public[0] != 0x05) return false;
  if (const Value* priv = field(*signing, "private"); priv != nullptr) {
    // protobufjs writes an unset bytes field as "" in toJSON.
    if (!(priv->IsString() && priv->GetStringLength() == 0)) {
      if (!b64_fixed(priv, s.signing_private)) return false;
      s.has_signing_private = true;
    }
  }
  if (const Value* keys = field(v, "senderMessageKeys"); keys != nullptr) {
    if (!keys->IsArray()) return false;
    for (const Value& k : keys->GetArray()) {
      // Baileys 6 stores skipped keys as SenderKeyStateStructure objects, whose protobufjs toJSON
      // drops both fields: its JSON stores hold "{}" for each (the key is lost there already).
      if (k.IsObject() && field(k, "seed") == nullptr && field(k, "iteration") == nullptr) continue;
      SenderMessageKey& mk = s.skipped.emplace_back();
      if (const Value* it = field(k, "iteration"); it != nullptr && !u32(it, mk.iteration)) return false;
      if (!b64_fixed(field(k, "seed"), mk.seed)) return false;
    }
  }
  return true;
}

using Writer = rapidjson::Writer<json::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>, json::Allocator>;

}  // namespace

Error sender_key_record_from_json(std::string_view json, SenderKeyRecord& out) {
  json::Document doc;
  // Iterative: nesting depth costs heap, not stack.
  doc.Parse<json::kParseFlags>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsArray()) return Error::invalid_record;
  if (doc.Size() > 4 * kMaxSenderKeyStates) return Error::invalid_record;
  SenderKeyRecord rec;
  for (const Value& v : doc.GetArray()) {
    if (!read_state(v, rec.states.emplace_back())) {
      wipe_sender_key_record(rec);
      return Error::invalid_record;
    }
  }
  enforce_sender_key_limits(rec);
  wipe_sender_key_record(out);
  out = std::move(rec);
  return Error::ok;
}

void sender_key_record_to_json(const SenderKeyRecord& record, std::string& out) {
  json::StringBuffer sb;
  Writer w(sb);
  w.StartArray();
  for (const SenderKeyState& s : record.states) {
    w.StartObject();
    w.Key("senderKeyId");
    w.Uint(s.key_id);
    w.Key("senderChainKey");
    w.StartObject();
    w.Key("iteration");
    w.Uint(s.iteration);
    w.Key("seed");
    json::write_b64(w, s.chain_key);
    w.EndObject();
    w.Key("senderSigningKey");
    w.StartObject();
    w.Key("public");
    json::write_b64(w, s.signing_public);
    if (s.has_signing_private) {
      w.Key("private");
      json::write_b64(w, s.signing_private);
    }
    w.EndObject();
    w.Key("senderMessageKeys");
    w.StartArray();
    for (const SenderMessageKey& mk : s.skipped) {
      w.StartObject();
      w.Key("iteration");
      w.Uint(mk.iteration);
      w.Key("seed");
      json::write_b64(w, mk.seed);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  out.assign(sb.GetString(), sb.GetSize());
  // The buffer held chain keys and signing keys.
  sodium_memzero(const_cast<char*>(sb.GetString()), sb.GetSize());
}

}  // namespace wacore::signal
