#include "core/measure/unmeasured_calls.hpp"

#include <algorithm>
#include <unordered_map>

#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// Regions nest through their parents; annotations open around the whole profile are in the
// paths but are no regions.
int nesting(const std::vector<RegionRun>& regions) {
  std::unordered_map<RegionId, RegionId> parent;
  for (const RegionRun& r : regions) parent[r.id] = r.parent;
  int depth = 1;
  for (const RegionRun& r : regions) {
    int d = 1;
    for (RegionId p = r.parent; p != kNoRegion && parent.contains(p); p = parent[p]) ++d;
    depth = std::max(depth, d);
  }
  return depth;
}

}  // namespace

UnmeasuredCalls::UnmeasuredCalls(SweepRuns& runs, const Done& done) : ranges_(runs.configs(), 0) {
  for (std::size_t c = 0; c < runs.configs(); ++c) {
    std::vector<RegionRun> regions;
    try {
      regions = runs.call_unmeasured(c);
    } catch (const UserFunctionError&) {
      if (c == 0) throw;
      try {
        done(c, 0);             // forgets what it launched
      } catch (const Error&) {  // the user's error is the one to report
      }
      defer_failure(c);
      return;
    }
    depth_ = std::max(depth_, nesting(regions));
    try {
      ranges_[c] = done(c, regions.size());
    } catch (const MeasurementError&) {  // work the backend cannot measure (a CUDA graph in
      defer_failure(c);                  // application replay)
      return;
    }
  }
}

// From the handler of config `c`'s failed call: keeps the error for when the sweep reaches
// `c`; config 0's is rethrown now.
void UnmeasuredCalls::defer_failure(std::size_t c) {
  if (c == 0) throw;
  failure_ = {c, std::current_exception()};
}

void UnmeasuredCalls::widen(std::size_t config, std::size_t ranges) {
  ranges_[config] = std::max(ranges_[config], ranges);
}

void UnmeasuredCalls::raise_if_failed(std::size_t config) const {
  if (failed(config)) std::rethrow_exception(failure_.second);
}

}  // namespace kprof::detail
