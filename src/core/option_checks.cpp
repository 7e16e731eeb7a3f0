#include "core/option_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <variant>

#include "core/measure/gpu_layer.hpp"
#include "core/metrics/metric_catalog.hpp"
#include "core/metrics/sass_opcodes.hpp"
#include "kprof/errors.hpp"
#include "kprof/layout.hpp"
#include "kprof/metrics.hpp"

namespace kprof {
namespace {

[[noreturn]] void reject(std::string_view option, std::string value, std::string_view valid) {
  throw OptionError(std::string(option), std::move(value), std::string(valid));
}

void validate_stopping(const StoppingRule& rule) {
  using detail::number_text;
  if (!(rule.rel_half_width > 0 && rule.rel_half_width < 1))
    throw OptionError("runs.rel_half_width", number_text(rule.rel_half_width),
                      "a share of the mean above 0 and below 1, such as 0.01 for 1%");
  if (rule.min_runs < 2)
    throw OptionError("runs.min_runs", std::to_string(rule.min_runs),
                      "an integer >= 2 (an interval needs two runs)");
  if (rule.max_runs < rule.min_runs)
    throw OptionError("runs.max_runs", std::to_string(rule.max_runs),
                      "an integer >= min_runs=" + std::to_string(rule.min_runs));
  if (!(rule.time_budget_s >= 0) || !std::isfinite(rule.time_budget_s))
    throw OptionError("runs.time_budget_s", number_text(rule.time_budget_s),
                      "a number of seconds >= 0 (0: no time budget)");
}

// nsight-python checks thermal_cont > thermal_wait only when both are given; kprof checks the
// values in effect, so that thermal_wait=25 alone (default thermal_cont 20) is refused too.
void check_thermal_window(const Options& o) {
  const ThermalOptions& t = o.thermal;
  const detail::ThermalSettings s = detail::thermal_settings(o);
  if (s.cont > s.wait) return;
  if (t.cont)
    throw OptionError("thermal_cont", std::to_string(s.cont),
                      "a value greater than thermal_wait=" + std::to_string(s.wait) +
                          (t.wait ? "" : " (the default)"));
  throw OptionError("thermal_wait", std::to_string(s.wait),
                    "a value smaller than thermal_cont=" + std::to_string(s.cont) +
                        " (the default; set thermal_cont too)");
}

// A set of launch statistics alone (set:launch): in range replay it would measure nothing.
bool launch_set(const std::string& name) {
  if (name.rfind(metrics::kSetPrefix, 0) != 0 || metrics::is_ncu_selection(name)) return false;
  for (const std::string& m : metrics::find_set(name).metrics)
    if (m != kDurationMetric && !metrics::is_launch_metric(m)) return false;
  return true;
}

// What a replay mode cannot measure (its traits, kReplayModes).
void check_replay(const Options& o) {
  const ReplayModeTraits& traits = traits_of(o.replay_mode);
  const std::string mode = "replay_mode='" + to_string(o.replay_mode) + "'";
  // A range's counters include every kernel in it: none can be left out afterwards.
  if (traits.whole_region && !o.ignore_kernels.empty())
    throw OptionError(
        "ignore_kernel_list",
        "a list of " + std::to_string(o.ignore_kernels.size()) + " kernel name(s) with " + mode,
        "an empty list with " + mode +
            " (a range's counters include every kernel launched in it), or "
            "replay_mode='kernel'");
  // Launch statistics belong to a kernel; a range is a region's kernels as one. Those a set
  // brings (set:analysis) are left out in range replay, so that the set works in every mode.
  if (traits.whole_region) {
    for (const std::string& m : o.metrics)
      if (metrics::is_launch_metric(m) || launch_set(m))
        throw OptionError("metrics", "'" + m + "' with " + mode,
                          "counters alone with " + mode +
                              " (a launch statistic describes one kernel, a range all of a "
                              "region's kernels together), or replay_mode='kernel' or "
                              "'application'");
  }
  // The number of runs must be known before the first pass.
  if (traits.fixed_runs && o.stopping)
    throw OptionError("runs", "'auto' (a stopping rule) with " + mode,
                      "a fixed number of runs with " + mode +
                          " (it runs every config and run once per pass, so the runs are fixed "
                          "before the first pass), or replay_mode='kernel'");
}

}  // namespace

// Every column of the result tables (kprof/layout.hpp): nsight-python's and kprof's own.
const std::vector<std::string>& reserved_column_names() { return result_column_names(); }

namespace rules {

void AtLeast::check(std::string_view option, int value) const {
  if (value < min) reject(option, std::to_string(value), valid);
}

void AtLeast::check(std::string_view option, const std::optional<int>& value) const {
  if (value) check(option, *value);
}

void Between::check(std::string_view option, double value) const {
  if (!(value >= lo && value <= hi)) reject(option, detail::number_text(value), valid);
}

void Names::check(std::string_view option, const std::vector<std::string>& names) const {
  for (const auto& n : names)
    if (n.empty()) reject(option, "''", valid);
}

void Runs::check(std::string_view option, const RunsValue& value) const {
  if (const int* runs = std::get_if<int>(&value)) {
    if (*runs < 1) reject(option, std::to_string(*runs), valid);
    return;
  }
  validate_stopping(std::get<StoppingRule>(value));
}

void MetricNames::check(std::string_view option, const std::vector<std::string>& metrics) const {
  if (metrics.empty()) reject(option, "[]", valid);
  for (const auto& m : metrics)
    if (m.empty())
      reject(option, "''", "a metric name such as '" + std::string(kDurationMetric) + "'");
  for (auto m = metrics.begin(); m != metrics.end(); ++m) {
    if (std::find(metrics.begin(), m, *m) == m) continue;
    std::string list;
    for (const auto& name : metrics) list += (list.empty() ? "'" : ", '") + name + "'";
    reject(option, "[" + list + "]", "metric names, each once ('" + *m + "' is named twice)");
  }
}

void PathPrefix::check(std::string_view option, const std::string& prefix) const {
  if (prefix.empty()) return;
  // The system's file calls end a path at its first NUL: the rest would name another file.
  if (prefix.find('\0') != std::string::npos)
    reject(option, "a path with a NUL character", "a path prefix without NUL characters");
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::path p = fs::path(prefix).parent_path(); !p.empty(); p = p.parent_path()) {
    if (!fs::exists(p, ec)) {
      if (p == p.parent_path()) break;
      continue;
    }
    if (!fs::is_directory(p, ec))
      reject(option, "'" + prefix + "'",
             "a path prefix whose folder can be made ('" + p.string() + "' is a file)");
    return;
  }
}

void Combine::check(std::string_view option, const CombineValue& value) const {
  if (value.kind == CombineKind::custom && !value.fn)
    reject(option, "custom without a function", valid);
}

void Collectors::check(std::string_view option,
                       const std::vector<InfoCollector>& collectors) const {
  const auto& reserved = reserved_column_names();
  std::set<std::string> seen;
  for (const auto& c : collectors) {
    const std::string value = "'" + c.name + "'";
    if (c.name.empty()) reject(option, "''", "collectors with a non-empty name");
    if (!seen.insert(c.name).second)
      reject(option, value, "collectors with distinct names (each name is a column)");
    if (std::find(reserved.begin(), reserved.end(), c.name) != reserved.end())
      reject(
          option, value,
          "a name that is not one of kprof's columns (reserved: " + join_choices(reserved) + ")");
    if (!c.collect)
      reject(option, value + " without a function", "a collector with a function to call");
  }
}

}  // namespace rules

namespace detail {

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

ThermalSettings thermal_settings(const Options& o) {
  return {o.thermal_mode, o.thermal.wait.value_or(kDefaultThermalWait),
          o.thermal.cont.value_or(kDefaultThermalCont),
          o.thermal.timeout_s.value_or(kDefaultThermalTimeout)};
}

void check_between_options(const Options& o) {
  check_thermal_window(o);
  check_replay(o);
}

}  // namespace detail
}  // namespace kprof

// --- the metric names ------------------------------------------------------------------------

namespace kprof::detail {

namespace {

// In the catalog, yet counted by instrumented code: the range profiler would print 0. set:flop's
// classes are counted in the process where `flop_unavailable` says nothing against it.
void check_instrumented(const std::vector<std::string>& expanded,
                        const std::function<std::string()>& flop_unavailable) {
  std::optional<std::string> why_not;  // asked once
  for (const std::string& m : expanded) {
    if (!is_instrumented_sass_counter(m)) continue;
    if (flop_class_counted_by(m) == FlopClass::none)
      throw OptionError("metrics", "'" + m + "'",
                        "a counter CUPTI's range profiler reads: this one counts thread "
                        "instructions by opcode class, which Nsight Compute measures by "
                        "instrumenting the kernel's code and the range profiler reads as 0 "
                        "(Python's kprof.activate(kprof.Tool.NCU) measures it; set:flop "
                        "holds the FP32, FP64 and FP16 classes kprof counts itself, and the "
                        "tensor cores' work is in set:analysis)");
    if (!why_not)
      why_not = flop_unavailable ? flop_unavailable()
                                 : std::string("set:flop is not counted in this process");
    if (!why_not->empty()) throw OptionError("metrics", "'" + m + "'", *why_not);
  }
}

}  // namespace

void check_metrics(const std::vector<std::string>& metrics,
                   const std::function<std::optional<std::string>()>& chip,
                   const std::function<std::string()>& flop_unavailable,
                   const std::function<std::string()>& sampling_unavailable) {
  const std::vector<std::string> expanded = metrics::expand(metrics);
  if (expanded.size() == 1 && expanded.front() == kDurationMetric) return;
  check_instrumented(expanded, flop_unavailable);
  const auto sampled = std::find_if(expanded.begin(), expanded.end(), [](const std::string& m) {
    return metrics::is_sampled_metric(m);
  });
  if (sampled != expanded.end() && sampling_unavailable)
    if (const std::string why = sampling_unavailable(); !why.empty())
      throw OptionError("metrics", "'" + *sampled + "'", why);
  // Without a GPU, or for a chip this CUPTI does not know, the names cannot be checked here;
  // profiling then reports the real problem (no GPU, no counters).
  std::optional<metrics::MetricCatalog> catalog;
  try {
    if (const std::optional<std::string> name = chip()) catalog = metrics::catalog(*name);
  } catch (const Error&) {
    return;
  }
  if (!catalog) return;
  for (const std::string& m : expanded)
    if (!catalog->contains(m)) throw metrics::detail::unknown_metric(*catalog, m, "metrics");
}

}  // namespace kprof::detail

// --- Options::validate() --------------------------------------------------------------------

namespace kprof {

void Options::validate_settings() const {
  for_each_row(kOptionTable,
               [this](const auto& row) { row.rule.check(row.name, row.access.get(*this)); });
  detail::check_between_options(*this);
}

void Options::validate() const {
  validate_settings();
  // Sets expanded, names checked against the current GPU's catalog (check_metrics, above).
  detail::check_metrics(
      metrics, [] { return metrics::current_chip(); }, detail::flop_counting_unavailable,
      detail::warp_sampling_unavailable);
}

}  // namespace kprof
