// correlation id -> region: how a kernel record finds the region its launch happened in.
//
// CUPTI gives every API call a correlation id, shared by a runtime launch and the driver
// launch nested in it, and stamps it on the kernel's activity record (for a graph launch, every
// kernel of the graph carries the graph launch's id). The launch callback inserts, the activity
// buffer callback looks up, collect() erases what it has consumed.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/measure/region_tracker.hpp"

namespace kprof::detail {

class CorrelationMap {
 public:
  void insert(std::uint32_t correlation, RegionId region);
  // kNoRegion when the launch was outside every region.
  RegionId find(std::uint32_t correlation) const;
  void erase(const std::vector<std::uint32_t>& correlations);
  void clear();

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::uint32_t, RegionId> regions_;
};

}  // namespace kprof::detail
