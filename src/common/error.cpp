#include "common/error.h"

namespace wacore {
namespace {

#define WACORE_ERROR_CODE(name, code, message) code,
#define WACORE_ERROR_MESSAGE(name, code, message) message,
constexpr const char* kCodes[] = {WACORE_ERRORS(WACORE_ERROR_CODE)};
constexpr const char* kMessages[] = {WACORE_ERRORS(WACORE_ERROR_MESSAGE)};
#undef WACORE_ERROR_CODE
#undef WACORE_ERROR_MESSAGE

static_assert(sizeof(kCodes) / sizeof(kCodes[0]) == static_cast<int>(Error::count_));

bool in_range(Error e) { return static_cast<int32_t>(e) >= 0 && e < Error::count_; }

}  // namespace

const char* error_code(Error e) noexcept {
  return in_range(e) ? kCodes[static_cast<int32_t>(e)] : "ERR_UNKNOWN";
}

const char* error_message(Error e) noexcept {
  return in_range(e) ? kMessages[static_cast<int32_t>(e)] : "unknown error";
}

}  // namespace wacore
