// Checks of the options: the rules of the option table (kprof::rules, declared with the table in
// kprof/options.hpp) are defined in option_checks.cpp, beside the checks between options.
// Both are parts of Options::validate().
#pragma once

#include <string>

#include "kprof/options.hpp"

namespace kprof::detail {

// The checks that involve several options: thermal_cont against thermal_wait, and what range
// and application replay need. Throws OptionError naming the option, the value and what is
// valid.
void check_between_options(const Options& options);

// A number as OptionError shows it ("%.17g").
std::string number_text(double v);

// The thermal options with nsight-python's defaults filled in.
struct ThermalSettings {
  ThermalMode mode = ThermalMode::automatic;
  int wait = kDefaultThermalWait;
  int cont = kDefaultThermalCont;
  int timeout_s = kDefaultThermalTimeout;
};
ThermalSettings thermal_settings(const Options& options);

}  // namespace kprof::detail
