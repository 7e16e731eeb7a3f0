// What a profile measures and how: the options struct and its enumerations.
//
// Names and defaults follow nsight-python's analyze.kernel, so a user of one reads the other.
// String forms ("all", "none", ...) are parsed here, once, for every front end.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

// L2 state at the start of every measured kernel.
enum class CacheControl {
  all,   // flush L2 before every measured kernel (cold cache), outside the measured time
  none,  // leave caches as the previous work left them (warm)
};

// SM clock during the profile.
enum class ClockControl {
  none,  // leave clocks as they are (nsight-python's default)
  base,  // lock the SM clock to its base frequency
};

// How hardware counters that need several passes are replayed.
enum class ReplayMode {
  kernel,  // each kernel replayed on its own (Nsight Compute's default)
  range,   // the benchmark function is called once per pass; one value per annotation
};

enum class ThermalMode { automatic, manual, off };

// Output on the terminal. Numbers match nsight-python's VerbosityLevel.
enum class Verbosity { silent = 0, info = 3, debug = 4 };

// How several kernels of one region are reduced to one value per run.
enum class CombineKind {
  automatic,  // one kernel: its value; several: sum for additive metrics (".sum"), else error
  sum,
  max,
  min,
  mean,
  custom,  // Options::combine_fn, a binary reduction applied left to right in launch order
};

// The default metric: kernel duration in nanoseconds.
inline constexpr std::string_view kDurationMetric = "gpu__time_duration.sum";

// One value of a derived metric, produced per (annotation, config, run).
struct DerivedValue {
  std::string name;
  double value = 0;
  std::string unit;  // empty: no unit given
};

// Called once per (annotation, config, run) with the region's metric values (in the order of
// Options::metrics) and the config index. Returns any number of derived values.
using DeriveFn = std::function<std::vector<DerivedValue>(const std::vector<double>& metric_values,
                                                         std::size_t config)>;

using CombineFn = std::function<double(double, double)>;

struct ThermalOptions {
  std::optional<int> wait;       // pause when headroom (°C) <= wait; default 10
  std::optional<int> cont;       // resume when headroom >= cont; default 20
  std::optional<int> timeout_s;  // give up after this many seconds; default 180
  std::optional<int> device;     // CUDA ordinal to watch; default the profiled device
};

struct Options {
  int runs = 1;
  std::vector<std::string> metrics = {std::string(kDurationMetric)};
  CacheControl cache_control = CacheControl::all;
  ClockControl clock_control = ClockControl::none;
  ReplayMode replay_mode = ReplayMode::kernel;
  ThermalMode thermal_mode = ThermalMode::automatic;
  ThermalOptions thermal;
  // Kernels not measured, matched exactly against the mangled name, the demangled name or the
  // demangled name without its parameter list.
  std::vector<std::string> ignore_kernels;
  CombineKind combine = CombineKind::automatic;
  CombineFn combine_fn;     // used when combine == custom
  bool per_kernel = false;  // one row per kernel of a region instead of one per region
  DeriveFn derive;
  std::string normalize_against;  // empty: no normalization
  std::string output_prefix;      // where output_csv writes; empty: a fresh temporary folder
  bool output_csv = false;
  Verbosity verbosity = Verbosity::info;

  // Throws OptionError for any invalid value, UnsupportedError for a capability this build
  // lacks. Called by profile() before any GPU work.
  void validate() const;
};

// Parse the string form of an option; throws OptionError naming `option`, the value and the
// valid choices.
CacheControl parse_cache_control(std::string_view value);
ClockControl parse_clock_control(std::string_view value);
ReplayMode parse_replay_mode(std::string_view value);
ThermalMode parse_thermal_mode(std::string_view value);
Verbosity parse_verbosity(std::string_view value);
CombineKind parse_combine(std::string_view value);  // "sum", "max", "min", "mean"

std::string to_string(CacheControl v);
std::string to_string(ClockControl v);
std::string to_string(ReplayMode v);
std::string to_string(ThermalMode v);
std::string to_string(Verbosity v);
std::string to_string(CombineKind v);

}  // namespace kprof
