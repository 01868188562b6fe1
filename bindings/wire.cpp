// The one output and the one export runner of the generated exports (wire.h).
#include "wire.h"

namespace wacore::bindings {

// The output of every generated export. It starts with room for the small results most calls give
// (keys, signatures, records of a few sessions), so those never make it reallocate; it grows, and
// stays grown, for larger ones.
constexpr size_t kOutputStart = 4096;

Output& output() {
  static Output out;
  return out;
}


int run_export(uintptr_t in, size_t len, int (*parse)(wire::Cursor&)) noexcept {
  Output& out = output();
  return out.run([&] {
    out.reset();
    out.reserve(kOutputStart);
    wire::Cursor c({reinterpret_cast<const uint8_t*>(in), len});
    return parse(c);
  });
}

}  // namespace wacore::bindings
