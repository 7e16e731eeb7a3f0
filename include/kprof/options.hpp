// What a profile measures and how: the options struct, its enumerations, and the table that
// declares every option once.
//
// Names and defaults follow nsight-python's analyze.kernel, so a user of one reads the other.
// An option is a field of Options (with its default) and a row of kOptionTable below (its name,
// what is valid, one line of doc). Options::validate(), set_option() (the text form, used by the
// command line), the Python bindings and Python's settings read the table; Python's
// analyze.kernel adds the option's keyword to its signature (docs/architecture.md, "Adding an
// option").
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "kprof/detail/option_table.hpp"

namespace kprof {

// L2 state at the start of every measured kernel.
enum class CacheControl {
  all,   // flush L2 before every measured kernel (cold cache), outside the measured time
  none,  // leave caches as the previous work left them (warm)
};
inline constexpr Choice<CacheControl> kCacheControlNames[] = {{CacheControl::all, "all"},
                                                              {CacheControl::none, "none"}};

// SM clock during the profile.
enum class ClockControl {
  none,  // leave clocks as they are (nsight-python's default)
  base,  // lock the SM clock to its base frequency
};
inline constexpr Choice<ClockControl> kClockControlNames[] = {{ClockControl::none, "none"},
                                                              {ClockControl::base, "base"}};

// How hardware counters that need several passes are replayed.
enum class ReplayMode {
  // kprof chooses, per profile, the mode whose every pass measures as Nsight Compute does:
  // application replay for a set of several passes with cache_control=all, kernel replay
  // otherwise (detail::chosen_replay_mode, before any backend is made). Results name the mode
  // used.
  automatic,
  kernel,  // each kernel replayed on its own (Nsight Compute's default)
  range,   // the benchmark function is called once per pass; one value per annotation
  // The benchmark function is called once per pass, values per kernel as with `kernel`
  // (Nsight Compute's --replay-mode application): every pass of every kernel starts after
  // an L2 flush, which CUPTI's kernel replay before 13.4 cannot give its later passes.
  application,
};

// What a replay mode is, read wherever the mode's behaviour matters: a new mode is its enum
// value, a row here, and its backend's source file (docs/architecture.md).
struct ReplayModeTraits {
  ReplayMode mode;
  std::string_view name;      // as users write it, and as results name it
  std::string_view ncu_name;  // Nsight Compute's --replay-mode for the same measurement
  // One value per annotation: the region's kernels, and the gaps between them, as one range
  // (so no kernel can be left out, and a launch statistic has no kernel to describe).
  bool whole_region;
  // Every (config, run) is called once per pass, pass after pass: the number of runs is fixed
  // before the first pass, so a stopping rule cannot decide it.
  bool fixed_runs;
};
inline constexpr ReplayModeTraits kReplayModes[] = {
    // Resolved to kernel or application before measuring; Nsight Compute's default is kernel.
    {ReplayMode::automatic, "auto", "kernel", false, false},
    {ReplayMode::kernel, "kernel", "kernel", false, false},
    {ReplayMode::range, "range", "range", true, true},
    {ReplayMode::application, "application", "application", false, true},
};
// The names of the modes, for the option table.
inline constexpr auto kReplayModeNames = [] {
  std::array<Choice<ReplayMode>, std::size(kReplayModes)> names{};
  for (std::size_t i = 0; i < names.size(); ++i)
    names[i] = {kReplayModes[i].mode, kReplayModes[i].name};
  return names;
}();

// The traits of `mode`.
constexpr const ReplayModeTraits& traits_of(ReplayMode mode) {
  for (const ReplayModeTraits& t : kReplayModes)
    if (t.mode == mode) return t;
  return kReplayModes[0];  // not reached: every mode has a row
}
// Whether results whose session names the replay mode `name` hold whole regions (false for a
// name no mode has, as a file of another tool may give).
constexpr bool whole_regions(std::string_view name) {
  for (const ReplayModeTraits& t : kReplayModes)
    if (t.name == name) return t.whole_region;
  return false;
}

enum class ThermalMode { automatic, manual, off };
inline constexpr Choice<ThermalMode> kThermalModeNames[] = {
    {ThermalMode::automatic, "auto"}, {ThermalMode::manual, "manual"}, {ThermalMode::off, "off"}};

// Output on the terminal. Numbers match nsight-python's VerbosityLevel.
enum class Verbosity { silent = 0, info = 3, debug = 4 };
inline constexpr Choice<Verbosity> kVerbosityNames[] = {
    {Verbosity::silent, "silent"}, {Verbosity::info, "info"}, {Verbosity::debug, "debug"}};

// How several kernels of one region are reduced to one value per run.
enum class CombineKind {
  none,  // one kernel per region: its value; several are an error, as in nsight-python
  sum,
  max,
  min,
  mean,
  custom,  // Options::combine_fn, a binary reduction applied left to right in launch order
};
// The names users give: 'none' is the default (None in Python), 'custom' comes with a function.
inline constexpr Choice<CombineKind> kCombineNames[] = {{CombineKind::sum, "sum"},
                                                        {CombineKind::max, "max"},
                                                        {CombineKind::min, "min"},
                                                        {CombineKind::mean, "mean"}};

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
inline constexpr Choice<CollectionScope> kCollectionScopeNames[] = {
    {CollectionScope::once, "once"},
    {CollectionScope::config, "config"},
    {CollectionScope::run, "run"},
    {CollectionScope::annotation, "annotation"}};

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
  // Unmeasured calls of the function per config before the profile begins, for what a first
  // call compiles or tunes (torch.compile, triton.autotune). With 2 or more, the last one is
  // the unprofiled call of the overhead disclosure, and none is made after the profile.
  int warmup = 0;
  // What profiling added to each run (SessionInfo::overhead_seconds_per_run): one unprofiled
  // call per config after the profile, and each run timed to the end of its kernels, as that
  // call is. False: the function is called only warmup + runs times per config.
  bool disclose_overhead = true;
  // Seconds to wait for the GPU's hardware counters while another process profiles them
  // (they serve one process at a time); 0 raises CountersBusyError at once, infinity waits
  // until they are free. Durations alone never wait.
  double wait_for_counters = 0;
  // Set: each config runs until this rule stops it, and `runs` is not used.
  std::optional<StoppingRule> stopping;
  // Metric names of the GPU's chip, or "set:NAME" for a metric set (kprof/metrics.hpp). The
  // duration alone is measured from activity records; any other list by the range profiler.
  std::vector<std::string> metrics = {std::string(kDurationMetric)};
  CacheControl cache_control = CacheControl::all;
  ClockControl clock_control = ClockControl::none;
  ReplayMode replay_mode = ReplayMode::automatic;
  ThermalMode thermal_mode = ThermalMode::automatic;
  ThermalOptions thermal;
  // Kernels not measured, matched exactly against the mangled name, the demangled name or the
  // demangled name without its parameter list.
  std::vector<std::string> ignore_kernels;
  CombineKind combine = CombineKind::none;
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
  // validate() but the check of the metric names against the current GPU's catalog: what a
  // benchmark declares can be checked where it is declared, on any machine (nsight-python
  // checks metric names only when a profile runs).
  void validate_settings() const;
};

// `runs` is one option over two fields: a number of runs, or a stopping rule.
using RunsValue = std::variant<int, StoppingRule>;
struct RunsField {
  using Value = RunsValue;
  static Value get(const Options& o);
  static void set(Options& o, Value v);  // a number of runs clears the stopping rule
};

// `combine_kernel_metrics` is one option over two fields: the kind, and the function of kind
// custom.
struct CombineValue {
  CombineKind kind = CombineKind::none;
  CombineFn fn;  // kind == custom
};
struct CombineField {
  using Value = CombineValue;
  static Value get(const Options& o);
  static void set(Options& o, Value v);
};

namespace rules {

// A number of runs >= 1, or a stopping rule whose fields are valid (runs.min_runs, ...).
struct Runs {
  std::string_view valid;
  void check(std::string_view option, const RunsValue& value) const;
};

// At least one metric, each a name of the current GPU's chip or a set ("set:memory").
struct MetricNames {
  std::string_view noun;
  std::string_view valid;  // an empty list
  void check(std::string_view option, const std::vector<std::string>& metrics) const;
};

// One of `names`, or a function (kind custom) of two values.
struct Combine {
  std::span<const Choice<CombineKind>> names;
  std::string_view valid;  // what is valid besides the names
  void check(std::string_view option, const CombineValue& value) const;
};

// Collectors with distinct, non-empty names that are not kprof's columns, each with a function.
struct Collectors {
  std::string_view valid;  // the form the front ends give them in
  void check(std::string_view option, const std::vector<InfoCollector>& collectors) const;
};

}  // namespace rules

// Every option, once. The name is the keyword of Python's analyze.kernel and what OptionError
// names; the default is the field's; rows with Reach::cpp are not keywords of analyze.kernel.
inline constexpr auto kOptionTable = std::tuple{
    option("runs", RunsField{}, rules::Runs{"an integer >= 1, 'auto' or a kprof.StoppingRule"},
           "runs per config, or a stopping rule that runs each config until its mean is known "
           "well enough ('auto': within 1% in 5 to 100 runs)"),
    option("metrics", Field<&Options::metrics>{},
           rules::MetricNames{"metric names", "at least one metric name"},
           "the metrics to collect: names of the GPU's chip or sets (set:NAME)"),
    option("cache_control", Field<&Options::cache_control>{},
           rules::OneOf<CacheControl>{kCacheControlNames},
           "L2 state at the start of every measured kernel: flushed (all) or warm (none)"),
    option("clock_control", Field<&Options::clock_control>{},
           rules::OneOf<ClockControl>{kClockControlNames},
           "SM clock during the profile: as it is (none) or locked to base (base)"),
    option("replay_mode", Field<&Options::replay_mode>{},
           rules::OneOf<ReplayMode>{kReplayModeNames},
           "how hardware counters that need several passes are replayed"),
    option("thermal_mode", Field<&Options::thermal_mode>{},
           rules::OneOf<ThermalMode>{kThermalModeNames},
           "the thermal guard: pauses before a run while the GPU is hot"),
    option("thermal_wait", Field<&Options::thermal, &ThermalOptions::wait>{},
           rules::Any{"an integer, or None"},
           "thermal headroom (degrees C) at which the guard pauses; default 10"),
    option("thermal_cont", Field<&Options::thermal, &ThermalOptions::cont>{},
           rules::Any{"an integer, or None"},
           "thermal headroom at which a paused guard resumes; default 20"),
    option("thermal_timeout", Field<&Options::thermal, &ThermalOptions::timeout_s>{},
           rules::AtLeast{1, "a positive number of seconds"},
           "seconds a thermal pause may last; default 180"),
    option("thermal_device", Field<&Options::thermal, &ThermalOptions::device>{},
           rules::AtLeast{0, "a CUDA device ordinal (>= 0), or none for the profiled device"},
           "CUDA ordinal of the GPU the thermal guard watches; default the profiled one"),
    option("ignore_kernel_list", Field<&Options::ignore_kernels>{},
           rules::Names{"kernel names", "non-empty kernel names"},
           "kernels not measured (mangled name, demangled name, or without its parameters)"),
    option("combine_kernel_metrics", CombineField{},
           rules::Combine{kCombineNames, "'sum', 'max', 'min', 'mean' or a function of two values"},
           "how the kernels of one region in one run become one value"),
    option("per_kernel", Field<&Options::per_kernel>{}, rules::Any{"true or false"},
           "one row per kernel of a region instead of one per region"),
    option("warmup", Field<&Options::warmup>{}, rules::AtLeast{0, "an integer >= 0"},
           "unmeasured calls of the function per config before the profile (compilation, "
           "autotuning)"),
    option("disclose_overhead", Field<&Options::disclose_overhead>{}, rules::Any{"true or false"},
           "one unprofiled call per config after the profile: what profiling added per run"),
    option("wait_for_counters", Field<&Options::wait_for_counters>{},
           rules::Between{0, std::numeric_limits<double>::infinity(),
                          "a number of seconds >= 0 (inf: until they are free)"},
           "seconds to wait for the GPU's counters while another process profiles them"),
    option("derive_metric", Field<&Options::derive>{}, rules::Any{"a function, or None"},
           "computes metrics of each run from the measured ones"),
    option("normalize_against", Field<&Options::normalize_against>{},
           rules::NameOrNone{"the name of an annotation (str), or None"},
           "the annotation every other one is divided by, per config and metric"),
    option("output_prefix", Field<&Options::output_prefix>{},
           rules::PathPrefix{"a path prefix (str or os.PathLike), or None"},
           "where output_csv writes; by default a fresh temporary folder"),
    option("output_csv", Field<&Options::output_csv>{}, rules::Any{"true or false"},
           "write nsight-python's CSV files after the profile"),
    option("verbosity", Field<&Options::verbosity>{},
           rules::OneOf<Verbosity>{kVerbosityNames,
                                   "VerbosityLevel.SILENT (0), VerbosityLevel.INFO (3) or "
                                   "VerbosityLevel.DEBUG (4)",
                                   true},
           "what is printed while profiling"),
    option("info_collectors", Field<&Options::info_collectors>{},
           rules::Collectors{"(name, scope, function) tuples"},
           "functions whose values become columns of the results"),
    option("throttle_threshold", Field<&Options::throttle_threshold>{},
           rules::Between{0, 1,
                          "a share of the rated SM clock between 0 and 1 (0: no throttle check)"},
           "runs measured below this share of the rated SM clock count as throttled", Reach::cpp),
};

// Sets the option `name` (a name of kOptionTable) from its text form, as a command line gives
// it: a number, a name, 'auto' for runs, 'none' for an unset number, a comma-separated list.
// Throws OptionError naming the option, the text and what is valid (for an unknown option, the
// option names).
void set_option(Options& options, std::string_view name, std::string_view text);

// Every option with its value, "runs=3, metrics=['gpu__time_duration.sum'], ...".
std::string to_string(const Options& options);

// The prefix output_csv writes with: output_prefix, with its folder made, or when it is empty a
// fresh temporary folder "<tmp>/kprof_XXXXXX/" (nsight-python's default). Throws Error when the
// folder cannot be made.
std::string make_output_prefix(const Options& options);

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
