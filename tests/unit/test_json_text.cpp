// The JSON text the large tables are written with is what nlohmann::json's dump() writes for
// the same values, so that files written before and after read and compare alike.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/results/json_text.hpp"

using kprof::detail::append_json;

namespace {

template <class T>
std::string written(const T& value) {
  std::string out;
  append_json(out, value);
  return out;
}

}  // namespace

TEST(JsonText, StringsAreEscapedAsDumpEscapesThem) {
  const std::vector<std::string> texts = {
      "",
      "fma",
      "kprof::demo::fma_kernel(float const*, float*, unsigned long, int)",
      "a \"quoted\" \\ name",
      "tab\tnewline\nreturn\r bell\x07 del\x7f",
      std::string("nul\0inside", 10),
      "Matrix \xc3\x97 vector \xe2\x88\x91",
  };
  for (const std::string& text : texts)
    EXPECT_EQ(written(std::string_view(text)), nlohmann::json(text).dump()) << text;
  // Text that is not UTF-8 is refused as dump() refuses it, never written as a file no reader
  // takes.
  EXPECT_THROW(written(std::string_view("\xff\xfe")), nlohmann::json::type_error);
}

TEST(JsonText, NumbersAreWrittenAsDumpWritesThem) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const double v : {0.0, -0.0, 1.0, 13824.0, 0.1, 1e-5, 2.5e-12, 4196522.666666667,
                         1.7976931348623157e308, -5e-324, 742743752145491.0, 1e16}) {
    EXPECT_EQ(written(v), nlohmann::json(v).dump()) << v;
  }
  EXPECT_EQ(written(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(written(inf), "\"inf\"");
  EXPECT_EQ(written(-inf), "\"-inf\"");
  for (const std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1} << 62,
                               std::numeric_limits<std::int64_t>::min()})
    EXPECT_EQ(written(v), nlohmann::json(v).dump());
  EXPECT_EQ(written(std::numeric_limits<std::uint64_t>::max()),
            nlohmann::json(std::numeric_limits<std::uint64_t>::max()).dump());
  EXPECT_EQ(written(int{-7}), "-7");
  EXPECT_EQ(written(std::size_t{42}), "42");
}

TEST(JsonText, FlagsAndUnsetFlags) {
  EXPECT_EQ(written(true), "true");
  EXPECT_EQ(written(false), "false");
  EXPECT_EQ(written(std::optional<bool>()), "null");
  EXPECT_EQ(written(std::optional<bool>(true)), "true");
}
