// The text of a number in results files and option values, read as std::from_chars reads it,
// with a standard library that has no floating-point from_chars (libc++ before LLVM 20) and
// whatever the program's locale.
#include <gtest/gtest.h>

#include <clocale>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "core/number_text.hpp"

using kprof::detail::format_double;
using kprof::detail::parse_double;

TEST(NumberText, WhatFromCharsReadsAndRefuses) {
  EXPECT_EQ(parse_double("1.5"), 1.5);
  EXPECT_EQ(parse_double("-2"), -2.0);
  EXPECT_EQ(parse_double("1.5e+3"), 1500.0);
  EXPECT_EQ(parse_double("2.5e-12"), 2.5e-12);
  EXPECT_EQ(parse_double("1.7976931348623157e+308"), std::numeric_limits<double>::max());
  EXPECT_EQ(parse_double("inf"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse_double("-inf"), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*parse_double("nan")));
  // A text longer than a number usually is reads the same.
  EXPECT_EQ(parse_double("0." + std::string(80, '0') + "15e+81"), 1.5);
  EXPECT_EQ(parse_double(std::string(70, '0') + "1x"), std::nullopt);
  for (const char* refused :
       {"", " 1", "1 ", "+1", "0x10", "1,5", "1.5x", "abc", "1e400", "-1e400", "1e-400"})
    EXPECT_EQ(parse_double(refused), std::nullopt) << refused;
}

TEST(NumberText, ReadTheSameWhateverTheProgramsLocale) {
  const std::string before = std::setlocale(LC_NUMERIC, nullptr);
  bool set = false;
  for (const char* comma : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"})
    if (std::setlocale(LC_NUMERIC, comma) != nullptr) {
      set = true;
      break;
    }
  if (!set) GTEST_SKIP() << "no locale with a decimal comma on this machine";
  const std::optional<double> read = parse_double("1.5");
  const std::string written = format_double(0.25);
  std::setlocale(LC_NUMERIC, before.c_str());
  EXPECT_EQ(read, 1.5);
  EXPECT_EQ(written, "0.25");
}
