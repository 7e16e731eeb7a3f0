// Display scaling of measured values: 2680000 ns reads better as 2.68 ms. Used by the results
// table, the command line and the reports; the stored values never change unit.
#pragma once

#include <optional>
#include <string>

namespace kprof {

// The significant digits of a value shown to a person.
inline constexpr int kDisplayDigits = 4;

struct Scaled {
  double value;
  std::string unit;
};

// The unit to show a value in, and the factor that takes a value in the original unit to it.
struct DisplayUnit {
  double factor;
  std::string unit;
};

// Known families (case-sensitive, with Nsight Compute's spellings as aliases):
//   time        ns us ms s          (nsecond usecond msecond second)
//   bytes       B KB MB GB TB       (byte bytes Kbyte Mbyte Gbyte Tbyte), 1000-based
//   byte rate   B/s .. TB/s         (byte/second Kbyte/second .. Tbyte/second, byte/s)
//   percent     %                   (percent)
// The unit picked is the largest one in which |value|, rounded to `significant` digits, is at
// least 1. Zero, NaN and infinities keep the given unit under its short name. Any other unit,
// "ratio" included, comes back unchanged with factor 1.
DisplayUnit display_unit(double value, const std::string& unit, int significant = kDisplayDigits);
Scaled scale_for_display(double value, const std::string& unit, int significant = kDisplayDigits);

// A unit as kprof's records spell it: CUPTI's and Nsight Compute's long names of the families
// above ("nanosecond", "nsecond", "usecond", "byte", "Mbyte", "byte/second", "percent") become
// the short ones ("ns", "us", "B", "MB", "B/s", "%"); any other unit comes back unchanged.
std::string short_unit(const std::string& unit);

// The factor that converts a value in `from` to `to`: unit_factor("ms", "ns") == 1e6. Empty
// when either unit is unknown or they measure different things.
std::optional<double> unit_factor(const std::string& from, const std::string& to);

// `v` rounded to `significant` digits, trailing zeros dropped: 2.68, 0.0001235, 12345 (integer
// digits are never cut). Exponent notation below 1e-4 and from 1e15 on: 1.5e-07.
// "nan", "inf", "-inf" for the non-finite values.
std::string format_number(double v, int significant = kDisplayDigits);

}  // namespace kprof
