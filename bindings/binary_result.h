// The binary codec's decode into its result words (BinaryResultWord), for the other family that
// decodes frames where they lie: Noise decrypts frames into its own output and has the codec read
// them there (bindings/noise_bindings.cpp).
#pragma once

#include <cstdint>
#include <span>

#include "common/error.h"

namespace wacore::bindings::plain {

// Decodes one frame (flag byte, then a node; inflated when flagged) with dictionary dict into the
// tape the result words describe; the frame is not copied.
Error decode_frame(std::span<const uint8_t> frame, int32_t dict);

}  // namespace wacore::bindings::plain
