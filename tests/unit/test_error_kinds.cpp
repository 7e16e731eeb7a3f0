// error_kinds(): every class's kind(), each once, the base first; what kprof.errors mirrors.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "kprof/errors.hpp"

namespace kprof {
namespace {

bool listed(std::string_view kind) {
  const auto kinds = error_kinds();
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

TEST(ErrorKinds, TheBaseFirstAndEachKindOnce) {
  const auto kinds = error_kinds();
  ASSERT_FALSE(kinds.empty());
  EXPECT_EQ(kinds.front(), "KprofError");
  EXPECT_EQ(std::set<std::string_view>(kinds.begin(), kinds.end()).size(), kinds.size());
  for (std::string_view kind : kinds) EXPECT_TRUE(kind.ends_with("Error")) << kind;
}

TEST(ErrorKinds, ListsTheKindOfErrorsThrownBySubclasses) {
  EXPECT_TRUE(listed(CountersBusyError("busy").kind()));
  EXPECT_TRUE(listed(GpuFaultError("fault").kind()));
  EXPECT_TRUE(listed(InterruptError("stopped").kind()));
  EXPECT_TRUE(listed(OptionError("runs", "0", "an integer >= 1").kind()));
  EXPECT_FALSE(listed("RuntimeError"));
}

}  // namespace
}  // namespace kprof
