// Range and application replay run the benchmark once per pass: the n-th region opened in a
// pass is region n in every pass (range "n" in range replay), and every pass must launch the
// same kernels in the same regions as the first, since the passes of one range are parts of
// one measurement. This keeps the first pass's regions, paths, nesting and kernels, and checks
// the later passes against them.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/backends/counter_collection.hpp"

namespace kprof::detail {

class PassRegions {
 public:
  void begin_session();
  void begin_pass();
  int pass() const { return pass_; }

  // A region opened in this pass: returns its number n. With `nests` (range replay), regions
  // opened while it is open are nested in it until close().
  std::size_t open(RegionId id, const std::string& path, bool nests);
  // Whether `id` was opened in this pass (and is now closed).
  bool close(RegionId id);
  // The pass's launches put each region's kernels where the first pass put them: kept in the
  // first pass, compared in the later ones (MeasurementError naming the region otherwise).
  void check_kernels(const std::vector<Launch>& launches, CounterCollection& counters);
  // What auto range i of a pass must be in every pass: the region's number and the kernel.
  std::vector<std::string> launch_order(const std::vector<Launch>& launches) const;
  // "replay_mode='range': in pass 2 ", for the messages of a later pass.
  std::string pass_prefix(ReplayMode mode) const;

  const std::vector<RegionId>& first_pass_regions() const { return first_pass_regions_; }
  const std::vector<std::size_t>& parent_range() const { return parent_range_; }
  const std::vector<std::vector<std::string>>& first_pass_kernels() const {
    return first_pass_kernels_;
  }

 private:
  int pass_ = -1;
  std::size_t opened_in_pass_ = 0;
  std::vector<RegionId> first_pass_regions_;                  // n -> its region
  std::vector<std::string> first_pass_paths_;                 // n -> its path
  std::vector<std::size_t> parent_range_;                     // n -> enclosing n, or none
  std::vector<std::vector<std::string>> first_pass_kernels_;  // n -> its own kernels
  std::unordered_map<RegionId, std::size_t> range_of_;        // this pass's region -> n
  std::vector<std::size_t> open_ranges_;                      // this pass's open regions
};

}  // namespace kprof::detail
