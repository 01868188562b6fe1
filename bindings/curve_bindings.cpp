// Glue for Curve25519 and XEdDSA (src/crypto/curve25519.h) and registration ids.
// Marshalling only: every function takes addresses in the module's one I/O buffer (the JS side copies
// inputs in, calls, and copies outputs out, bindings/module.cpp), plus lengths, and returns what its
// declared return kind says (an Error, a Value, ...); the export turns a failure into -Error, which
// the generated JS function raises as a WacoreError.
#include <emscripten.h>

#include <cstdint>

#include "common/error.h"
#include "crypto/curve25519.h"
#include "generated/boundary.h"
#include "signal/registration.h"

// The plain exports' family functions (bindings/boundary.json, "plain"): the generated exports at the
// end of this file call them and turn what they return into the one convention.
namespace wacore::bindings::plain {

// --- curve ---------------------------------------------------------------------------------------

// The sizes of the keys, signatures and randomness are declared (bindings/boundary.json) and checked
// by the generated exports before these run.

// pub: the type byte, then u.
Error curve_generate_key_pair(uintptr_t priv, uintptr_t pub) {
  at(pub)[0] = wacore::curve::kDjbType;
  return wacore::curve::generate_key_pair(at(priv), at(pub + 1));
}

Error curve_public_from_private(uintptr_t priv, size_t, uintptr_t pub) {
  at(pub)[0] = wacore::curve::kDjbType;
  return wacore::curve::public_from_private(at(priv), at(pub + 1));
}

// pub: 33 bytes (the type byte, then u) or 32 (u).
Error curve_agreement(uintptr_t pub, size_t pub_len, uintptr_t priv, size_t, uintptr_t shared) {
  uint8_t u[wacore::curve::kKeyBytes];
  if (Error e = wacore::curve::parse_public_key(bytes(pub, pub_len), u); e != Error::ok) return e;
  return wacore::curve::agreement(u, at(priv), at(shared));
}

Error curve_sign(uintptr_t priv, size_t, uintptr_t msg, size_t msg_len, uintptr_t sig) {
  return wacore::curve::sign(at(priv), bytes(msg, msg_len), at(sig));
}

Error curve_sign_with_random(uintptr_t priv, size_t, uintptr_t msg, size_t msg_len, uintptr_t random, size_t,
                             uintptr_t sig) {
  wacore::curve::sign_with_random(at(priv), bytes(msg, msg_len), at(random), at(sig));
  return Error::ok;
}

// 1 for a valid signature, 0 for an invalid one.
wire::Value curve_verify(uintptr_t pub, size_t pub_len, uintptr_t msg, size_t msg_len, uintptr_t sig, size_t) {
  uint8_t u[wacore::curve::kKeyBytes];
  if (Error e = wacore::curve::parse_public_key(bytes(pub, pub_len), u); e != Error::ok) return e;
  return wire::Value::of(wacore::curve::verify(u, bytes(msg, msg_len), at(sig)) ? 1 : 0);
}

// The ID (0..16383).
wire::Value registration_id() {
  uint32_t id = 0;
  if (Error e = wacore::signal::generate_registration_id(id); e != Error::ok) return e;
  return wire::Value::of(id);
}

}  // namespace wacore::bindings::plain

// The plain exports of this file (bindings/boundary.json, "plain"), generated.
#include "generated/curve_bindings.inc"
