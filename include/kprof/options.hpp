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
#include <variant>
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
  // The benchmark function is called once per pass, values per kernel as with `kernel`
  // (Nsight Compute's --replay-mode application): every pass of every kernel starts after
  // an L2 flush, which CUPTI's kernel replay before 13.4 cannot give its later passes.
  application,
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

// nsight-python's thermovision constants (docs/conditions.md).
inline constexpr int kDefaultThermalWait = 10;      // °C of headroom at which the guard pauses
inline constexpr int kDefaultThermalCont = 20;      // °C of headroom at which it resumes
inline constexpr int kDefaultThermalTimeout = 180;  // seconds

// A run whose measured SM clock is below this share of the rated clock counts as throttled
// (NVBench's default throttle threshold, 75%).
inline constexpr double kDefaultThrottleThreshold = 0.75;

// Runs each config until the mean is known well enough, instead of a fixed number of runs.
// A config stops when, for every (annotation, measured metric[, kernel]) of the config, the
// half-width of the Student-t 95% interval of the mean is at most `rel_half_width` of |mean|,
// and at least `min_runs` runs were made; it also stops at `max_runs` runs, or once its runs
// took `time_budget_s` seconds (thermal pauses excluded), whichever comes first.
struct StoppingRule {
  double rel_half_width = 0.01;  // 1% of the mean
  int min_runs = 5;
  int max_runs = 100;
  double time_budget_s = 15;  // NVBench's timeout; 0: no time budget
};

// When an info collector is called (nsight-python's CollectionScope).
enum class CollectionScope {
  once,        // once per profile, before the first config
  config,      // once per config, before its first run
  run,         // before every run (after the thermal guard)
  annotation,  // whenever an annotation opens, before its region starts
};

// Where a collector is called from. `run` is -1 for once and config scope; `config` is 0 for
// once scope; `annotation` is the annotation's path ("outer/inner"), set in annotation scope.
struct CollectorCall {
  CollectionScope scope = CollectionScope::run;
  std::size_t config = 0;
  int run = -1;
  std::string annotation;
};

// What a collector returns: nothing (no value), a number, or text.
using InfoResult = std::variant<std::monostate, double, std::string>;

// A custom information collector (nsight-python's InfoCollector): its values become columns
// of the results. Numbers collected per config, run or annotation are summarised per row as
// <name>_Avg, <name>_Std, <name>_Min and <name>_Max; once-scope values and text give one
// column <name>. A collector that throws gives no value for that call and one warning.
struct InfoCollector {
  std::string name;
  CollectionScope scope = CollectionScope::run;
  std::function<InfoResult(const CollectorCall&)> collect;
};

// Column names of the results that a collector may not take (nsight-python's reserved names
// and kprof's own columns).
const std::vector<std::string>& reserved_column_names();

struct Options {
  int runs = 1;  // runs per config, unless `stopping` is set
  // Set: each config runs until this rule stops it, and `runs` is not used.
  std::optional<StoppingRule> stopping;
  // Metric names of the GPU's chip, or "set:NAME" for a metric set (kprof/metrics.hpp). The
  // duration alone is measured from activity records; any other list by the range profiler.
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
  std::vector<InfoCollector> info_collectors;
  // Runs measured below this share of the rated SM clock are flagged as throttled; 0: never.
  double throttle_threshold = kDefaultThrottleThreshold;

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
CombineKind parse_combine(std::string_view value);               // "sum", "max", "min", "mean"
CollectionScope parse_collection_scope(std::string_view value);  // "once", "config"...

std::string to_string(CacheControl v);
std::string to_string(ClockControl v);
std::string to_string(ReplayMode v);
std::string to_string(ThermalMode v);
std::string to_string(Verbosity v);
std::string to_string(CombineKind v);
std::string to_string(CollectionScope v);

}  // namespace kprof
