// zlib inflate with a cap on the output, for the binary codec's compressed frames and WhatsApp's
// history-sync blobs. zlib's own allocations (window and state, which hold decompressed data) are
// zeroed when freed, and so is every buffer the output outgrows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"

namespace wacore {

// Inflates the zlib stream `in` (header and checksum included) into `out` (replacing what it
// held). Returns `malformed` for a stream that is invalid, ends early or has bytes after its end,
// `too_large` when it inflates past `max` bytes, Error::out_of_memory when zlib cannot allocate.
Error inflate_capped(std::span<const uint8_t> in, size_t max, std::vector<uint8_t>& out, Error malformed, Error too_large);

}  // namespace wacore
