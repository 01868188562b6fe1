#include "noise/proto.h"

#include <exception>
#include <new>
#include <protozero/pbf_reader.hpp>

#include "common/pbf.h"
#include <protozero/pbf_writer.hpp>
#include <string>

namespace wacore::noise::proto {
namespace {

using protozero::pbf_wire_type;

View view_of(const protozero::data_view& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size()};
}

// protozero only asserts (a debug-build abort, a release-build misread) when a field is read with
// the wrong accessor for its wire type; these readers check first and report malformed input.
bool read_bytes(protozero::pbf_reader& r, View& out) {
  if (r.wire_type() != pbf_wire_type::length_delimited) return false;
  out = view_of(r.get_view());
  return true;
}
bool read_varint(protozero::pbf_reader& r, uint64_t& out) {
  if (r.wire_type() != pbf_wire_type::varint) return false;
  out = r.get_uint64();
  return true;
}

// Runs f, turning protozero's exceptions (and a failed allocation) into error values.
template <typename F>
Error guarded(Error malformed, F&& f) {
  try {
    return f() ? Error::ok : malformed;
  } catch (const std::bad_alloc&) {
    return Error::out_of_memory;
  } catch (const protozero::exception&) {
    return malformed;
  } catch (const std::exception&) {
    return malformed;
  }
}

void add(protozero::pbf_writer& w, uint32_t field, View v) {
  if (!v.empty()) w.add_bytes(field, reinterpret_cast<const char*>(v.data()), v.size());
}

void append(std::vector<uint8_t>& out, const std::string& s) {
  out.insert(out.end(), reinterpret_cast<const uint8_t*>(s.data()),
             reinterpret_cast<const uint8_t*>(s.data()) + s.size());
}

}  // namespace

Error parse_handshake(View message, Kind kind, Hello& out) {
  out = {};
  return guarded(Error::noise_message, [&] {
    protozero::pbf_reader msg(reinterpret_cast<const char*>(message.data()), message.size());
    bool found = false;
    View step;
    while (pbf_next(msg)) {
      if (msg.tag() == static_cast<uint32_t>(kind)) {
        if (!read_bytes(msg, step)) return false;
        found = true;
      } else {
        msg.skip();
      }
    }
    if (!found) return false;
    // clientFinish numbers its fields one lower: it has no ephemeral.
    const uint32_t base = kind == Kind::client_finish ? 0 : 1;
    protozero::pbf_reader r(reinterpret_cast<const char*>(step.data()), step.size());
    while (pbf_next(r)) {
      const uint32_t t = r.tag();
      if (base == 1 && t == 1) {
        if (!read_bytes(r, out.ephemeral)) return false;
      } else if (t == base + 1) {
        if (!read_bytes(r, out.static_key)) return false;
      } else if (t == base + 2) {
        if (!read_bytes(r, out.payload)) return false;
      } else {
        r.skip();
      }
    }
    return true;
  });
}

// The writers run outside any try block: protozero's writer throws nothing but a failed allocation,
// which goes on to the export's guard (bindings/guard.h) like any other in the core.
template <typename F>
Error unguarded(F&& f) {
  f();
  return Error::ok;
}

Error write_handshake(Kind kind, const Hello& in, std::vector<uint8_t>& out) {
  return unguarded([&] {
    std::string buf;
    {
      protozero::pbf_writer w(buf);
      protozero::pbf_writer step(w, static_cast<uint32_t>(kind));
      const uint32_t base = kind == Kind::client_finish ? 0 : 1;
      if (base == 1) add(step, 1, in.ephemeral);
      add(step, base + 1, in.static_key);
      add(step, base + 2, in.payload);
    }
    append(out, buf);
    return true;
  });
}

Error parse_cert_chain(View bytes, CertChain& out) {
  out = {};
  return guarded(Error::noise_cert, [&] {
    protozero::pbf_reader chain(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    bool have_leaf = false, have_intermediate = false;
    while (pbf_next(chain)) {
      const uint32_t t = chain.tag();
      if (t != 1 && t != 2) {
        chain.skip();
        continue;
      }
      View cert_bytes;
      if (!read_bytes(chain, cert_bytes)) return false;
      Certificate& cert = t == 1 ? out.leaf : out.intermediate;
      (t == 1 ? have_leaf : have_intermediate) = true;
      cert = {};
      protozero::pbf_reader c(reinterpret_cast<const char*>(cert_bytes.data()), cert_bytes.size());
      while (pbf_next(c)) {
        if (c.tag() == 1) {
          if (!read_bytes(c, cert.details)) return false;
        } else if (c.tag() == 2) {
          if (!read_bytes(c, cert.signature)) return false;
        } else {
          c.skip();
        }
      }
    }
    return have_leaf && have_intermediate;
  });
}

Error parse_details(View bytes, Details& out) {
  out = {};
  return guarded(Error::noise_cert, [&] {
    protozero::pbf_reader d(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    while (pbf_next(d)) {
      bool ok = true;
      switch (d.tag()) {
        case 1: ok = read_varint(d, out.serial); break;
        case 2: ok = read_varint(d, out.issuer_serial); break;
        case 3: ok = read_bytes(d, out.key); break;
        case 4: ok = read_varint(d, out.not_before); break;
        case 5: ok = read_varint(d, out.not_after); break;
        default: d.skip();
      }
      if (!ok) return false;
    }
    return true;
  });
}

Error write_details(const Details& in, std::vector<uint8_t>& out) {
  return unguarded([&] {
    std::string buf;
    {
      protozero::pbf_writer w(buf);
      w.add_uint64(1, in.serial);
      w.add_uint64(2, in.issuer_serial);
      add(w, 3, in.key);
      w.add_uint64(4, in.not_before);
      w.add_uint64(5, in.not_after);
    }
    append(out, buf);
    return true;
  });
}

Error write_cert_chain(const CertChain& in, std::vector<uint8_t>& out) {
  return unguarded([&] {
    std::string buf;
    {
      protozero::pbf_writer w(buf);
      for (uint32_t field : {1u, 2u}) {
        const Certificate& c = field == 1 ? in.leaf : in.intermediate;
        protozero::pbf_writer cert(w, field);
        add(cert, 1, c.details);
        add(cert, 2, c.signature);
      }
    }
    append(out, buf);
    return true;
  });
}

}  // namespace wacore::noise::proto
