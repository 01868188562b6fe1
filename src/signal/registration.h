// Registration IDs: the random 14-bit number each Signal installation announces.
#pragma once

#include <cstdint>

#include "common/error.h"

namespace wacore::signal {

// Mask applied to 16 random bits: libsignal and WhatsApp use IDs in 1..16383 (14 bits).
inline constexpr uint32_t kRegistrationIdMask = 0x3FFF;

// A uniformly random registration ID in 0..16383, drawn from wacore::random_bytes.
Error generate_registration_id(uint32_t& out);

}  // namespace wacore::signal
