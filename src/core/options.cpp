#include "kprof/options.hpp"

#include <array>
#include <string>
#include <utility>

#include "core/metric_catalog.hpp"
#include "core/option_checks.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"

namespace kprof {
namespace {

template <typename E, std::size_t N>
using Names = std::array<std::pair<E, const char*>, N>;

constexpr Names<CacheControl, 2> kCacheControl{
    {{CacheControl::all, "all"}, {CacheControl::none, "none"}}};
constexpr Names<ClockControl, 2> kClockControl{
    {{ClockControl::none, "none"}, {ClockControl::base, "base"}}};
constexpr Names<ReplayMode, 3> kReplayMode{{{ReplayMode::kernel, "kernel"},
                                            {ReplayMode::range, "range"},
                                            {ReplayMode::application, "application"}}};
constexpr Names<ThermalMode, 3> kThermalMode{
    {{ThermalMode::automatic, "auto"}, {ThermalMode::manual, "manual"}, {ThermalMode::off, "off"}}};
constexpr Names<Verbosity, 3> kVerbosity{
    {{Verbosity::silent, "silent"}, {Verbosity::info, "info"}, {Verbosity::debug, "debug"}}};
constexpr Names<CombineKind, 6> kCombine{{{CombineKind::automatic, "auto"},
                                          {CombineKind::sum, "sum"},
                                          {CombineKind::max, "max"},
                                          {CombineKind::min, "min"},
                                          {CombineKind::mean, "mean"},
                                          {CombineKind::custom, "custom"}}};

template <typename E, std::size_t N>
E parse(const Names<E, N>& names, const char* option, std::string_view value) {
  std::vector<std::string> valid;
  for (const auto& [e, name] : names) {
    if (value == name) return e;
    valid.emplace_back(name);
  }
  throw OptionError(option, "'" + std::string(value) + "'", join_choices(valid));
}

template <typename E, std::size_t N>
std::string name_of(const Names<E, N>& names, E v) {
  for (const auto& [e, name] : names)
    if (e == v) return name;
  return "?";
}

void validate_metrics(const std::vector<std::string>& metrics) {
  if (metrics.empty()) throw OptionError("metrics", "[]", "at least one metric name");
  for (const auto& m : metrics) {
    if (m.empty())
      throw OptionError("metrics", "''",
                        "a metric name such as '" + std::string(kDurationMetric) + "'");
  }
  // Sets expanded, names checked against the current GPU's catalog
  // (src/core/metric_catalog.cpp).
  detail::check_metrics(metrics, [] { return metrics::current_chip(); });
}

}  // namespace

CacheControl parse_cache_control(std::string_view v) {
  return parse(kCacheControl, "cache_control", v);
}
ClockControl parse_clock_control(std::string_view v) {
  return parse(kClockControl, "clock_control", v);
}
ReplayMode parse_replay_mode(std::string_view v) { return parse(kReplayMode, "replay_mode", v); }
ThermalMode parse_thermal_mode(std::string_view v) {
  return parse(kThermalMode, "thermal_mode", v);
}
Verbosity parse_verbosity(std::string_view v) { return parse(kVerbosity, "verbosity", v); }

CombineKind parse_combine(std::string_view v) {
  constexpr Names<CombineKind, 4> user_names{{{CombineKind::sum, "sum"},
                                              {CombineKind::max, "max"},
                                              {CombineKind::min, "min"},
                                              {CombineKind::mean, "mean"}}};
  return parse(user_names, "combine_kernel_metrics", v);
}

std::string to_string(CacheControl v) { return name_of(kCacheControl, v); }
std::string to_string(ClockControl v) { return name_of(kClockControl, v); }
std::string to_string(ReplayMode v) { return name_of(kReplayMode, v); }
std::string to_string(ThermalMode v) { return name_of(kThermalMode, v); }
std::string to_string(Verbosity v) { return name_of(kVerbosity, v); }
std::string to_string(CombineKind v) { return name_of(kCombine, v); }

void Options::validate() const {
  if (runs < 1) throw OptionError("runs", std::to_string(runs), "an integer >= 1");
  validate_metrics(metrics);
  if (combine == CombineKind::custom && !combine_fn)
    throw OptionError("combine_kernel_metrics", "custom without a function",
                      "'sum', 'max', 'min', 'mean' or a function of two values");
  for (const auto& k : ignore_kernels)
    if (k.empty()) throw OptionError("ignore_kernel_list", "''", "non-empty kernel names");
  // The stopping rule, the thermal guard, info collectors (src/core/option_checks.cpp).
  detail::validate_conditions(*this);
  // A range's counters include every kernel in it: none can be left out afterwards.
  if (replay_mode == ReplayMode::range && !ignore_kernels.empty())
    throw OptionError("ignore_kernel_list",
                      "a list of " + std::to_string(ignore_kernels.size()) +
                          " kernel name(s) with replay_mode='range'",
                      "an empty list with replay_mode='range' (a range's counters include "
                      "every kernel launched in it), or replay_mode='kernel'");
  // Range and application replay run every (config, run) once per pass, pass-major: the
  // number of runs must be known before the first pass.
  if (replay_mode != ReplayMode::kernel && stopping) {
    const std::string mode = "replay_mode='" + to_string(replay_mode) + "'";
    throw OptionError("runs", "'auto' (a stopping rule) with " + mode,
                      "a fixed number of runs with " + mode +
                          " (it runs every config and run once per pass, so the runs are fixed "
                          "before the first pass), or replay_mode='kernel'");
  }
}

}  // namespace kprof
