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

// out: private key (PRIVATE_KEY_BYTES) then public u.
Error curve_generate_key_pair(uintptr_t out) {
  return wacore::curve::generate_key_pair(at(out), at(out + wire::kPrivateKeyBytes));
}

Error curve_public_from_private(uintptr_t priv, size_t priv_len, uintptr_t out) {
  if (priv_len != wacore::curve::kPrivateKeyBytes) return Error::key_length;
  return wacore::curve::public_from_private(at(priv), at(out));
}

Error curve_agreement(uintptr_t pub, size_t pub_len, uintptr_t priv, size_t priv_len, uintptr_t out) {
  uint8_t u[wacore::curve::kKeyBytes];
  if (Error e = wacore::curve::parse_public_key(bytes(pub, pub_len), u); e != Error::ok) return e;
  if (priv_len != wacore::curve::kPrivateKeyBytes) return Error::key_length;
  return wacore::curve::agreement(u, at(priv), at(out));
}

Error curve_sign(uintptr_t priv, size_t priv_len, uintptr_t msg, size_t msg_len, uintptr_t out) {
  if (priv_len != wacore::curve::kPrivateKeyBytes) return Error::key_length;
  return wacore::curve::sign(at(priv), bytes(msg, msg_len), at(out));
}

Error curve_sign_with_random(uintptr_t priv, size_t priv_len, uintptr_t msg, size_t msg_len, uintptr_t random,
                             size_t random_len, uintptr_t out) {
  if (priv_len != wacore::curve::kPrivateKeyBytes) return Error::key_length;
  if (random_len != wacore::curve::kSignatureRandomBytes) return Error::random_length;
  wacore::curve::sign_with_random(at(priv), bytes(msg, msg_len), at(random), at(out));
  return Error::ok;
}

// 1 for a valid signature, 0 for an invalid one.
wire::Value curve_verify(uintptr_t pub, size_t pub_len, uintptr_t msg, size_t msg_len, uintptr_t sig, size_t sig_len) {
  uint8_t u[wacore::curve::kKeyBytes];
  if (Error e = wacore::curve::parse_public_key(bytes(pub, pub_len), u); e != Error::ok) return e;
  if (sig_len != wacore::curve::kSignatureBytes) return Error::signature_length;
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
