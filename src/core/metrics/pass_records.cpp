#include "core/metrics/pass_records.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include "core/metrics/sass_opcodes.hpp"
#include "kprof/demangle.hpp"
#include "kprof/metrics.hpp"

namespace kprof::detail {
namespace {

using RegionKey = std::pair<std::size_t, std::string>;  // config, annotation
using Values = std::vector<double>;

// The regions' functions by demangled name, the names kernel records carry.
std::map<RegionKey, std::map<std::string, Values>> by_kernel_name(
    const std::vector<RegionValues>& taken) {
  std::map<RegionKey, std::map<std::string, Values>> out;
  for (const RegionValues& region : taken) {
    auto& functions = out[{region.config, region.annotation}];
    for (const auto& [mangled, values] : region.functions)
      add_values(functions[demangle(mangled)], values);
  }
  return out;
}

// A failed run's record of a region that launched nothing: no kernel, no unit, no value. It
// carries every metric asked for, launch statistics too where the mode measures none.
bool launched_nothing(const Record& r) {
  return r.kernel.empty() && r.unit.empty() && std::isnan(r.value);
}

// The launches of kernels: the records of one metric that every launch has (not a pass's), one
// per launch and run.
std::vector<const Record*> launches(const std::vector<Record>& measured) {
  std::vector<const Record*> out;
  const auto first = std::find_if(measured.begin(), measured.end(), [](const Record& r) {
    return !taken_by_a_pass(r.metric) && !launched_nothing(r);
  });
  if (first == measured.end()) return out;
  for (const Record& r : measured)
    if (r.metric == first->metric && r.kind == kKernelKind && !launched_nothing(r))
      out.push_back(&r);
  return out;
}

// The values of `kernel` in a region's functions; with `whole_region`, everything the region
// took, once each function `kernel` names ("a|b") is among them (but the names range replay
// gives what it cannot name, "(graph)" and "(unnamed kernel)", whose functions the sum holds
// anyway). nullopt when one was not taken, unless `missing_is_zero` (no values: 0).
std::optional<Values> values_of(const std::map<std::string, Values>& functions,
                                const std::string& kernel, bool whole_region,
                                bool missing_is_zero) {
  if (!whole_region) {
    const auto f = functions.find(kernel);
    if (f != functions.end()) return f->second;
    return missing_is_zero ? std::optional(Values{}) : std::nullopt;
  }
  for (std::size_t begin = 0; begin < kernel.size() && !missing_is_zero;) {
    const std::size_t end = std::min(kernel.find('|', begin), kernel.size());
    const std::string name = kernel.substr(begin, end - begin);
    if (!name.starts_with('(') && !functions.contains(name)) return std::nullopt;
    begin = end + 1;
  }
  Values sum;
  for (const auto& [function, values] : functions) add_values(sum, values);
  return sum;
}

}  // namespace

void add_values(Values& sum, const Values& values) {
  if (sum.size() < values.size()) sum.resize(values.size(), 0.0);
  for (std::size_t i = 0; i < values.size(); ++i) sum[i] += values[i];
}

bool taken_by_a_pass(const std::string& metric) {
  return flop_class_counted_by(metric) != FlopClass::none || metrics::is_sampled_metric(metric);
}

std::vector<Record> pass_records(const std::vector<RegionValues>& taken, const PassMetrics& metrics,
                                 const std::vector<Record>& measured, bool whole_regions) {
  const auto values = by_kernel_name(taken);
  const std::vector<const Record*> all = launches(measured);
  // How often each run of a region launched each kernel (with `whole_regions`, how often it
  // opened the region, whose openings the values add up): its values are split that many ways.
  std::map<std::tuple<std::size_t, int, std::string, std::string>, int> times;
  const auto key = [whole_regions](const Record* r) {
    return std::tuple(r->config, r->run, r->annotation, whole_regions ? "" : r->kernel);
  };
  for (const Record* r : all) ++times[key(r)];
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<Record> out;
  out.reserve(all.size() * metrics.names.size());
  for (const Record* launch : all) {
    std::optional<Values> found;
    if (auto region = values.find({launch->config, launch->annotation}); region != values.end())
      found = values_of(region->second, launch->kernel, whole_regions, metrics.missing_is_zero);
    const int ways = times[key(launch)];
    for (std::size_t m = 0; m < metrics.names.size(); ++m) {
      Record r = *launch;
      r.metric = metrics.names[m];
      r.unit = metrics.unit;
      r.value = found ? (m < found->size() ? (*found)[m] : 0.0) / ways : nan;
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace kprof::detail
