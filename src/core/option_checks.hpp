// Checks of the options that set the measurement conditions: the stopping rule, the thermal
// guard, the throttle threshold and the info collectors. Part of Options::validate().
#pragma once

#include "kprof/options.hpp"

namespace kprof::detail {

// Throws OptionError naming the option, the value and what is valid.
void validate_conditions(const Options& options);

// The thermal options with nsight-python's defaults filled in.
struct ThermalSettings {
  ThermalMode mode = ThermalMode::automatic;
  int wait = kDefaultThermalWait;
  int cont = kDefaultThermalCont;
  int timeout_s = kDefaultThermalTimeout;
};
ThermalSettings thermal_settings(const Options& options);

}  // namespace kprof::detail
