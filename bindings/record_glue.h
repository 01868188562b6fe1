// What the Signal and the sender-key exports do alike with a record's JSON form (libsignal-node's
// session JSON, Baileys' sender-key JSON): read it into a record and emit the record bytes, or emit
// the JSON text; the record and the text hold key material and are wiped either way.
#pragma once

#include <sodium.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"
#include "generated/boundary.h"

namespace wacore::bindings::impl {

// Emits the JSON text as TextOut, then wipes it.
inline int emit_json(std::string& json) {
  const int result = emit(wire::TextOut{.text = {reinterpret_cast<const uint8_t*>(json.data()), json.size()}});
  sodium_memzero(json.data(), json.size());
  return result;
}

// A record given as JSON text: read by from_json, emitted by emit_record, wiped by wipe.
template <typename Record, typename FromJson, typename Wipe, typename EmitRecord>
int record_from_json(const wire::TextIn& in, FromJson from_json, Wipe wipe, EmitRecord emit_record) {
  Record r;
  const Error e = from_json(std::string_view(reinterpret_cast<const char*>(in.text.data()), in.text.size()), r);
  const int result = e != Error::ok ? rc(e) : emit_record(r);
  wipe(r);
  return result;
}

}  // namespace wacore::bindings::impl
