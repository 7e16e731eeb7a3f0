#include "core/metrics/flop_records.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include "kprof/demangle.hpp"

namespace kprof::detail {
namespace {

constexpr const char* kUnit = "inst";

using RegionKey = std::pair<std::size_t, std::string>;  // config, annotation

// The counted regions' functions by demangled name, the names kernel records carry.
std::map<RegionKey, std::map<std::string, FlopCounts>> by_kernel_name(
    const std::vector<RegionFlop>& counted) {
  std::map<RegionKey, std::map<std::string, FlopCounts>> out;
  for (const RegionFlop& region : counted) {
    auto& functions = out[{region.config, region.annotation}];
    for (const auto& [mangled, counts] : region.functions)
      add_counts(functions[demangle(mangled)], counts);
  }
  return out;
}

// A failed run's record of a region that launched nothing: no kernel, no unit, no value. It
// carries every metric asked for, launch statistics too where the mode measures none.
bool launched_nothing(const Record& r) {
  return r.kernel.empty() && r.unit.empty() && std::isnan(r.value);
}

// The launches of kernels: the records of one metric that every launch has (not one of
// set:flop's classes), one per launch and run.
std::vector<const Record*> launches(const std::vector<Record>& measured) {
  std::vector<const Record*> out;
  const auto first = std::find_if(measured.begin(), measured.end(), [](const Record& r) {
    return flop_class_counted_by(r.metric) == FlopClass::none && !launched_nothing(r);
  });
  if (first == measured.end()) return out;
  for (const Record& r : measured)
    if (r.metric == first->metric && r.kind == kKernelKind && !launched_nothing(r))
      out.push_back(&r);
  return out;
}

// The counts of `kernel` in a region's functions; with `whole_region`, everything the region
// counted, once each function `kernel` names ("a|b") is among them (but the names range replay
// gives what it cannot name, "(graph)" and "(unnamed kernel)", whose functions the sum holds
// anyway). nullopt when one was not counted.
std::optional<FlopCounts> counts_of(const std::map<std::string, FlopCounts>& functions,
                                    const std::string& kernel, bool whole_region) {
  if (!whole_region) {
    const auto f = functions.find(kernel);
    return f == functions.end() ? std::nullopt : std::optional(f->second);
  }
  for (std::size_t begin = 0; begin < kernel.size();) {
    const std::size_t end = std::min(kernel.find('|', begin), kernel.size());
    const std::string name = kernel.substr(begin, end - begin);
    if (!name.starts_with('(') && !functions.contains(name)) return std::nullopt;
    begin = end + 1;
  }
  FlopCounts sum{};
  for (const auto& [function, counts] : functions) add_counts(sum, counts);
  return sum;
}

}  // namespace

std::vector<Record> flop_records(const std::vector<RegionFlop>& counted,
                                 const std::vector<Record>& measured, bool whole_regions) {
  const auto counts = by_kernel_name(counted);
  const std::vector<const Record*> all = launches(measured);
  // How often each run of a region launched each kernel (with `whole_regions`, how often it
  // opened the region, whose openings the counts add up): its counts are split that many ways.
  std::map<std::tuple<std::size_t, int, std::string, std::string>, int> times;
  const auto key = [whole_regions](const Record* r) {
    return std::tuple(r->config, r->run, r->annotation, whole_regions ? "" : r->kernel);
  };
  for (const Record* r : all) ++times[key(r)];
  std::vector<Record> out;
  out.reserve(all.size() * (kFlopClasses - 1));
  for (const Record* launch : all) {
    std::optional<FlopCounts> found;
    if (auto region = counts.find({launch->config, launch->annotation}); region != counts.end())
      found = counts_of(region->second, launch->kernel, whole_regions);
    const int ways = times[key(launch)];
    for (std::size_t c = 1; c < kFlopClasses; ++c) {  // every class but none
      Record r = *launch;
      r.metric = std::string(flop_metric(static_cast<FlopClass>(c)));
      r.unit = kUnit;
      r.value = found ? (*found)[c] / ways : std::numeric_limits<double>::quiet_NaN();
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace kprof::detail
