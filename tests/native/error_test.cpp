#include "common/error.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace wacore {
namespace {

TEST(Error, EveryCodeIsDistinctAndNamed) {
  std::set<std::string> seen;
  for (int i = 0; i < static_cast<int>(Error::count_); i++) {
    const std::string code = error_code(static_cast<Error>(i));
    EXPECT_TRUE(i == 0 ? code == "OK" : code.rfind("ERR_", 0) == 0) << code;
    EXPECT_TRUE(seen.insert(code).second) << "duplicate code " << code;
    EXPECT_STRNE(error_message(static_cast<Error>(i)), "");
  }
}

TEST(Error, OutOfRangeValuesAreUnknown) {
  EXPECT_STREQ(error_code(static_cast<Error>(-1)), "ERR_UNKNOWN");
  EXPECT_STREQ(error_code(Error::count_), "ERR_UNKNOWN");
}

}  // namespace
}  // namespace wacore
