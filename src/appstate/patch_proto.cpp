// Decoding the app-state protobufs (WAProto's SyncdPatch, SyncdSnapshot, SyncdMutation(s),
// SyncdRecord, SyncActionData) through protozero. protozero throws on malformed input and so does
// malformed() on a field of the wrong type; each public function catches and returns
// Error::invalid_patch.
#include <protozero/pbf_reader.hpp>

#include "common/pbf.h"

#include <new>

#include "appstate/patch.h"

namespace wacore::appstate {
namespace {

using protozero::pbf_reader;
using protozero::pbf_wire_type;

struct Malformed {};
[[noreturn]] void malformed() { throw Malformed{}; }

pbf_reader reader(std::span<const uint8_t> in) { return {reinterpret_cast<const char*>(in.data()), in.size()}; }

uint64_t read_varint(pbf_reader& r) {
  if (r.wire_type() != pbf_wire_type::varint) malformed();
  return r.get_uint64();
}

std::span<const uint8_t> read_bytes(pbf_reader& r) {
  if (r.wire_type() != pbf_wire_type::length_delimited) malformed();
  const protozero::data_view v = r.get_view();
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size()};
}

// A message whose only field of interest is bytes field 1 (SyncdIndex, SyncdValue, KeyId).
std::span<const uint8_t> read_blob(pbf_reader& r) {
  pbf_reader m = reader(read_bytes(r));
  std::span<const uint8_t> out;
  while (pbf_next(m)) {
    if (m.tag() == 1) {
      out = read_bytes(m);
    } else {
      m.skip();
    }
  }
  return out;
}

// SyncdVersion{version=1}.
uint64_t read_version(pbf_reader& r) {
  pbf_reader m = reader(read_bytes(r));
  uint64_t v = 0;
  while (pbf_next(m)) {
    if (m.tag() == 1) {
      v = read_varint(m);
    } else {
      m.skip();
    }
  }
  return v;
}

void read_record(std::span<const uint8_t> in, SyncdRecord& rec) {
  pbf_reader r = reader(in);
  while (pbf_next(r)) {
    switch (r.tag()) {
      case 1: rec.index = read_blob(r); break;
      case 2: rec.value = read_blob(r); break;
      case 3: rec.key_id = read_blob(r); break;
      default: r.skip();
    }
  }
}

void read_mutation(std::span<const uint8_t> in, SyncdMutation& m) {
  pbf_reader r = reader(in);
  while (pbf_next(r)) {
    switch (r.tag()) {
      case 1: {
        const uint64_t op = read_varint(r);
        if (op > 1) malformed();  // SyncdOperation has SET = 0 and REMOVE = 1 only
        m.operation = static_cast<Operation>(op);
        break;
      }
      case 2: read_record(read_bytes(r), m.record); break;
      default: r.skip();
    }
  }
}

void push_mutation(std::vector<SyncdMutation>& out, std::span<const uint8_t> bytes) {
  if (out.size() >= kMaxMutations) malformed();
  read_mutation(bytes, out.emplace_back());
}

template <typename F>
Error guarded(F&& f) {
  try {
    f();
    return Error::ok;
  } catch (const std::bad_alloc&) {
    return Error::out_of_memory;
  } catch (...) {
    return Error::invalid_patch;
  }
}

}  // namespace

Error decode_patch(std::span<const uint8_t> in, SyncdPatch& out) {
  SyncdPatch p;
  const Error e = guarded([&] {
    pbf_reader r = reader(in);
    while (pbf_next(r)) {
      switch (r.tag()) {
        case 1: p.version = read_version(r); p.has_version = true; break;
        case 2: push_mutation(p.mutations, read_bytes(r)); break;
        case 3: p.external_mutations = read_bytes(r); p.has_external = true; break;
        case 4: p.snapshot_mac = read_bytes(r); break;
        case 5: p.patch_mac = read_bytes(r); break;
        case 6: p.key_id = read_blob(r); break;
        case 8: {
          const uint64_t v = read_varint(r);
          if (v > UINT32_MAX) malformed();
          p.device_index = static_cast<uint32_t>(v);
          p.has_device_index = true;
          break;
        }
        default: r.skip();
      }
    }
  });
  if (e == Error::ok) out = std::move(p);
  return e;
}

Error decode_snapshot(std::span<const uint8_t> in, SyncdSnapshot& out) {
  SyncdSnapshot s;
  const Error e = guarded([&] {
    pbf_reader r = reader(in);
    while (pbf_next(r)) {
      switch (r.tag()) {
        case 1: s.version = read_version(r); s.has_version = true; break;
        case 2:
          if (s.records.size() >= kMaxMutations) malformed();
          read_record(read_bytes(r), s.records.emplace_back());
          break;
        case 3: s.mac = read_bytes(r); break;
        case 4: s.key_id = read_blob(r); break;
        default: r.skip();
      }
    }
  });
  if (e == Error::ok) out = std::move(s);
  return e;
}

Error decode_mutations(std::span<const uint8_t> in, std::vector<SyncdMutation>& out) {
  std::vector<SyncdMutation> list;
  const Error e = guarded([&] {
    pbf_reader r = reader(in);
    while (pbf_next(r)) {
      if (r.tag() == 1) {
        if (out.size() + list.size() >= kMaxMutations) malformed();
        read_mutation(read_bytes(r), list.emplace_back());
      } else {
        r.skip();
      }
    }
  });
  if (e == Error::ok) out.insert(out.end(), list.begin(), list.end());
  return e;
}

Error decode_sync_action_data(std::span<const uint8_t> in, SyncActionData& out) {
  SyncActionData d;
  const Error e = guarded([&] {
    pbf_reader r = reader(in);
    while (pbf_next(r)) {
      switch (r.tag()) {
        case 1: d.index = read_bytes(r); break;
        case 2: d.value = read_bytes(r); d.has_value = true; break;
        case 3: d.padding = read_bytes(r); break;
        case 4: d.version = static_cast<int32_t>(read_varint(r)); d.has_version = true; break;
        default: r.skip();
      }
    }
  });
  if (e == Error::ok) out = d;
  return e;
}

}  // namespace wacore::appstate
