#include "cuda/cupti/correlation_map.hpp"

namespace kprof::detail {

void CorrelationMap::insert(std::uint32_t correlation, RegionId region) {
  std::lock_guard<std::mutex> lock(mutex_);
  regions_[correlation] = region;
}

RegionId CorrelationMap::find(std::uint32_t correlation) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = regions_.find(correlation);
  return it == regions_.end() ? kNoRegion : it->second;
}

void CorrelationMap::erase(const std::vector<std::uint32_t>& correlations) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::uint32_t c : correlations) regions_.erase(c);
}

void CorrelationMap::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  regions_.clear();
}

}  // namespace kprof::detail
