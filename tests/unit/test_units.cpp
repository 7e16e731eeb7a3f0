#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kprof/units.hpp"

namespace kprof {
namespace {

void expect_scaled(double value, const std::string& unit, double want_value,
                   const std::string& want_unit) {
  const Scaled s = scale_for_display(value, unit);
  EXPECT_DOUBLE_EQ(s.value, want_value) << value << " " << unit;
  EXPECT_EQ(s.unit, want_unit) << value << " " << unit;
}

TEST(Units, TimePicksTheLargestUnitWithAValueOfAtLeastOne) {
  expect_scaled(0.5, "ns", 0.5, "ns");
  expect_scaled(999.4, "ns", 999.4, "ns");
  expect_scaled(1500, "ns", 1.5, "us");
  expect_scaled(2680000, "ns", 2.68, "ms");
  expect_scaled(3e9, "ns", 3, "s");
  expect_scaled(5e12, "ns", 5000, "s");  // no unit above seconds
  expect_scaled(-2680000, "ns", -2.68, "ms");
}

TEST(Units, TimeAcceptsNsightComputeSpellingsAndOtherStartUnits) {
  expect_scaled(2500, "nsecond", 2.5, "us");
  expect_scaled(0.002, "ms", 2, "us");
  expect_scaled(1200, "msecond", 1.2, "s");
  expect_scaled(0.25, "second", 250, "ms");
}

TEST(Units, UnitIsChosenAfterRoundingToTheShownDigits) {
  // 999999 ns would show as "1000 us"; it reads as 1 ms.
  expect_scaled(999999, "ns", 0.999999, "ms");
  expect_scaled(999949, "ns", 999.949, "us");
  EXPECT_EQ(display_unit(999999, "ns", 7).unit, "us");
}

TEST(Units, BytesAreThousandBased) {
  expect_scaled(999, "byte", 999, "B");
  expect_scaled(2048, "bytes", 2.048, "KB");
  expect_scaled(1.5e9, "byte", 1.5, "GB");
  expect_scaled(1500, "Mbyte", 1.5, "GB");
  expect_scaled(4e12, "B", 4, "TB");
}

TEST(Units, ByteRates) {
  expect_scaled(3.35e12, "byte/second", 3.35, "TB/s");
  expect_scaled(0.5, "Gbyte/second", 500, "MB/s");
  expect_scaled(2e9, "B/s", 2, "GB/s");
}

TEST(Units, PercentStaysPercent) {
  expect_scaled(87.5, "%", 87.5, "%");
  expect_scaled(0.001, "%", 0.001, "%");
  expect_scaled(87.5, "percent", 87.5, "%");
}

TEST(Units, RatioAndUnknownUnitsAreUntouched) {
  expect_scaled(1234567, "ratio", 1234567, "ratio");
  expect_scaled(1234567, "inst", 1234567, "inst");
  expect_scaled(1e9, "", 1e9, "");
  expect_scaled(1e9, "gb", 1e9, "gb");  // units are case-sensitive: "gb" is not known
}

TEST(Units, ZeroAndNonFiniteKeepTheirUnitUnderItsShortName) {
  expect_scaled(0, "us", 0, "us");
  expect_scaled(0, "nsecond", 0, "ns");
  const DisplayUnit nan = display_unit(std::nan(""), "msecond");
  EXPECT_EQ(nan.unit, "ms");
  EXPECT_EQ(nan.factor, 1);
  EXPECT_EQ(display_unit(std::numeric_limits<double>::infinity(), "byte").unit, "B");
}

TEST(Units, DisplayFactorAppliesToOtherValuesOfTheRow) {
  const DisplayUnit d = display_unit(2680000, "ns");
  EXPECT_EQ(d.unit, "ms");
  EXPECT_DOUBLE_EQ(10000 * d.factor, 0.01);
}

TEST(Units, UnitFactorConvertsWithinOneFamilyOnly) {
  EXPECT_EQ(unit_factor("ms", "ns"), 1e6);
  EXPECT_EQ(unit_factor("nsecond", "us"), 1e-3);
  EXPECT_EQ(unit_factor("Gbyte", "B"), 1e9);
  EXPECT_EQ(unit_factor("Gbyte/second", "MB/s"), 1e3);
  EXPECT_EQ(unit_factor("percent", "%"), 1);
  EXPECT_FALSE(unit_factor("ns", "B").has_value());
  EXPECT_FALSE(unit_factor("byte", "B/s").has_value());
  EXPECT_FALSE(unit_factor("inst", "inst").has_value());
  EXPECT_FALSE(unit_factor("ns", "ratio").has_value());
}

TEST(Units, FormatNumberKeepsSignificantDigitsAndDropsTrailingZeros) {
  EXPECT_EQ(format_number(2.68, 4), "2.68");
  EXPECT_EQ(format_number(2.6799999999999997, 4), "2.68");
  EXPECT_EQ(format_number(1234.5678, 4), "1235");
  EXPECT_EQ(format_number(100, 4), "100");
  EXPECT_EQ(format_number(9.99996, 4), "10");
  EXPECT_EQ(format_number(0.000123456, 4), "0.0001235");
  EXPECT_EQ(format_number(-0.5, 4), "-0.5");
  EXPECT_EQ(format_number(3.14159, 2), "3.1");
  EXPECT_EQ(format_number(0, 4), "0");
}

TEST(Units, FormatNumberNeverCutsIntegerDigits) {
  EXPECT_EQ(format_number(12345.678, 4), "12346");
  EXPECT_EQ(format_number(123456789, 4), "123456789");
}

TEST(Units, FormatNumberUsesExponentsForVerySmallAndVeryLargeValues) {
  EXPECT_EQ(format_number(1.5e-7, 4), "1.5e-07");
  EXPECT_EQ(format_number(1e15, 4), "1e+15");
  EXPECT_EQ(format_number(-2.345678e20, 4), "-2.346e+20");
}

TEST(Units, FormatNumberNonFinite) {
  EXPECT_EQ(format_number(std::nan(""), 4), "nan");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity(), 4), "inf");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity(), 4), "-inf");
}

TEST(ShortUnit, LongNamesOfCuptiAndNsightComputeBecomeKprofs) {
  EXPECT_EQ(short_unit("nanosecond"), "ns");
  EXPECT_EQ(short_unit("nsecond"), "ns");
  EXPECT_EQ(short_unit("usecond"), "us");
  EXPECT_EQ(short_unit("byte"), "B");
  EXPECT_EQ(short_unit("Mbyte"), "MB");
  EXPECT_EQ(short_unit("byte/second"), "B/s");
  EXPECT_EQ(short_unit("percent"), "%");
  EXPECT_EQ(short_unit("ns"), "ns");
  EXPECT_EQ(short_unit("cycle"), "cycle");
  EXPECT_EQ(short_unit(""), "");
}

}  // namespace
}  // namespace kprof
