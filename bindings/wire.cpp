// The one output and the one export runner of the generated exports (wire.h).
#include "wire.h"

namespace wacore::bindings {

Output& output() {
  static Output out;
  return out;
}

int run_export(uintptr_t in, size_t len, int (*parse)(wire::Cursor&)) noexcept {
  Output& out = output();
  return out.run([&] {
    out.reset();
    wire::Cursor c({reinterpret_cast<const uint8_t*>(in), len});
    return parse(c);
  });
}

}  // namespace wacore::bindings
