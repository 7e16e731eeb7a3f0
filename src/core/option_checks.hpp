// Options::validate() in one place: the rules of the option table (kprof::rules, declared with
// the table in kprof/options.hpp), the checks between options and the check of the metric
// names are defined in option_checks.cpp, with validate() and validate_settings() themselves.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kprof/options.hpp"

namespace kprof::detail {

// The checks that involve several options: thermal_cont against thermal_wait, and what range
// and application replay need. Throws OptionError naming the option, the value and what is
// valid.
void check_between_options(const Options& options);

// The metric part of Options::validate(), after the empty-list checks. `chip` is asked only
// when the list holds more than the duration metric; it returns the current device's chip, or
// nothing when there is no GPU (the names are then not checked).
//   - "set:NAME" with an unknown set: OptionError naming the sets;
//   - with a chip, a name its catalog lacks: OptionError naming the closest valid names;
//   - a SASS instruction count (is_instrumented_sass_counter) but set:flop's classes: an
//     OptionError naming Nsight Compute; one of set:flop's classes where `flop_unavailable`
//     (asked only then; empty: nowhere) returns why kprof cannot count it here: an OptionError
//     saying so; a sampled metric (set:source) where `sampling_unavailable` (asked only then)
//     returns why kprof cannot sample warps here: an OptionError saying so.
void check_metrics(const std::vector<std::string>& metrics,
                   const std::function<std::optional<std::string>()>& chip,
                   const std::function<std::string()>& flop_unavailable = {},
                   const std::function<std::string()>& sampling_unavailable = {});

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
