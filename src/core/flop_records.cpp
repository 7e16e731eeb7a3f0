#include "core/flop_records.hpp"

#include <algorithm>
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

// The launches of kernels: the records of the first metric, one per launch and run.
std::vector<const Record*> launches(const std::vector<Record>& measured) {
  std::vector<const Record*> out;
  if (measured.empty()) return out;
  const std::string& first = measured.front().metric;
  for (const Record& r : measured)
    if (r.metric == first && r.kind == kKernelKind) out.push_back(&r);
  return out;
}

// The counts of `kernel` in a region's functions: of each function a record names, summed where a
// whole-region record names several ("a|b": range replay's); nullopt when one was not counted.
std::optional<FlopCounts> counts_of(const std::map<std::string, FlopCounts>& functions,
                                    const std::string& kernel) {
  FlopCounts sum{};
  for (std::size_t begin = 0; begin <= kernel.size();) {
    const std::size_t end = std::min(kernel.find('|', begin), kernel.size());
    const auto f = functions.find(kernel.substr(begin, end - begin));
    if (f == functions.end()) return std::nullopt;
    add_counts(sum, f->second);
    begin = end + 1;
  }
  return sum;
}

}  // namespace

std::vector<Record> flop_records(const std::vector<RegionFlop>& counted,
                                 const std::vector<Record>& measured) {
  const auto counts = by_kernel_name(counted);
  const std::vector<const Record*> all = launches(measured);
  // How often each run of a region launched each kernel: its counts are split that many ways.
  std::map<std::tuple<std::size_t, int, std::string, std::string>, int> times;
  for (const Record* r : all) ++times[{r->config, r->run, r->annotation, r->kernel}];
  std::vector<Record> out;
  out.reserve(all.size() * (kFlopClasses - 1));
  for (const Record* launch : all) {
    std::optional<FlopCounts> found;
    if (auto region = counts.find({launch->config, launch->annotation}); region != counts.end())
      found = counts_of(region->second, launch->kernel);
    const int ways = times[{launch->config, launch->run, launch->annotation, launch->kernel}];
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
