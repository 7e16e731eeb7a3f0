#include "core/metrics/flop_records.hpp"

#include <vector>

#include "core/metrics/pass_records.hpp"

namespace kprof::detail {

std::vector<Record> flop_records(const std::vector<RegionFlop>& counted,
                                 const std::vector<Record>& measured, bool whole_regions) {
  PassMetrics metrics;
  for (std::size_t c = 1; c < kFlopClasses; ++c)  // every class but none
    metrics.names.emplace_back(flop_metric(static_cast<FlopClass>(c)));
  metrics.unit = "inst";
  std::vector<RegionValues> taken;
  taken.reserve(counted.size());
  for (const RegionFlop& region : counted) {
    RegionValues& values = taken.emplace_back(RegionValues{region.config, region.annotation, {}});
    for (const auto& [function, counts] : region.functions)
      values.functions[function].assign(counts.begin() + 1, counts.end());
  }
  return pass_records(taken, metrics, measured, whole_regions);
}

}  // namespace kprof::detail
