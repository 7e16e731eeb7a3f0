#include "core/option_checks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

#include "kprof/errors.hpp"
#include "kprof/layout.hpp"

namespace kprof {
namespace {

constexpr std::array<std::pair<CollectionScope, const char*>, 4> kScopes{
    {{CollectionScope::once, "once"},
     {CollectionScope::config, "config"},
     {CollectionScope::run, "run"},
     {CollectionScope::annotation, "annotation"}}};

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void validate_stopping(const StoppingRule& rule) {
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
void validate_thermal(const Options& o) {
  const ThermalOptions& t = o.thermal;
  const detail::ThermalSettings s = detail::thermal_settings(o);
  if (s.cont <= s.wait) {
    if (t.cont)
      throw OptionError("thermal_cont", std::to_string(s.cont),
                        "a value greater than thermal_wait=" + std::to_string(s.wait) +
                            (t.wait ? "" : " (the default)"));
    throw OptionError("thermal_wait", std::to_string(s.wait),
                      "a value smaller than thermal_cont=" + std::to_string(s.cont) +
                          " (the default; set thermal_cont too)");
  }
  if (t.timeout_s && *t.timeout_s <= 0)
    throw OptionError("thermal_timeout", std::to_string(*t.timeout_s),
                      "a positive number of seconds");
  if (t.device && *t.device < 0)
    throw OptionError("thermal_device", std::to_string(*t.device),
                      "a CUDA device ordinal (>= 0), or none for the profiled device");
}

void validate_collectors(const std::vector<InfoCollector>& collectors) {
  const auto& reserved = reserved_column_names();
  std::set<std::string> seen;
  for (const auto& c : collectors) {
    const std::string value = "'" + c.name + "'";
    if (c.name.empty())
      throw OptionError("info_collectors", "''", "collectors with a non-empty name");
    if (!seen.insert(c.name).second)
      throw OptionError("info_collectors", value,
                        "collectors with distinct names (each name is a column)");
    if (std::find(reserved.begin(), reserved.end(), c.name) != reserved.end())
      throw OptionError(
          "info_collectors", value,
          "a name that is not one of kprof's columns (reserved: " + join_choices(reserved) + ")");
    if (!c.collect)
      throw OptionError("info_collectors", value + " without a function",
                        "a collector with a function to call");
  }
}

}  // namespace

// Every column of the result tables (kprof/layout.hpp): nsight-python's and kprof's own.
const std::vector<std::string>& reserved_column_names() { return result_column_names(); }

CollectionScope parse_collection_scope(std::string_view v) {
  std::vector<std::string> valid;
  for (const auto& [scope, name] : kScopes) {
    if (v == name) return scope;
    valid.emplace_back(name);
  }
  throw OptionError("scope", "'" + std::string(v) + "'", join_choices(valid));
}

std::string to_string(CollectionScope v) {
  for (const auto& [scope, name] : kScopes)
    if (scope == v) return name;
  return "?";
}

namespace detail {

ThermalSettings thermal_settings(const Options& o) {
  return {o.thermal_mode, o.thermal.wait.value_or(kDefaultThermalWait),
          o.thermal.cont.value_or(kDefaultThermalCont),
          o.thermal.timeout_s.value_or(kDefaultThermalTimeout)};
}

void validate_conditions(const Options& o) {
  if (o.stopping) validate_stopping(*o.stopping);
  validate_thermal(o);
  if (!(o.throttle_threshold >= 0 && o.throttle_threshold <= 1))
    throw OptionError("throttle_threshold", number_text(o.throttle_threshold),
                      "a share of the rated SM clock between 0 and 1 (0: no throttle check)");
  validate_collectors(o.info_collectors);
}

}  // namespace detail
}  // namespace kprof
