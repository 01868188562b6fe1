#include "signal/registration.h"

#include "common/random.h"

namespace wacore::signal {

Error generate_registration_id(uint32_t& out) {
  uint8_t b[2];
  if (Error e = random_bytes(b, sizeof b); e != Error::ok) return e;
  out = ((static_cast<uint32_t>(b[1]) << 8) | b[0]) & kRegistrationIdMask;
  return Error::ok;
}

}  // namespace wacore::signal
