// Turns a backend's measurements into raw records: joins them to the regions they were
// launched in, applies the ignore list, orders kernels inside a region, and makes outer
// regions include the kernels of the regions nested in them.
#pragma once

#include <deque>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/measure/backend.hpp"
#include "core/measure/region_tracker.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof::detail {

class RecordBuilder {
 public:
  RecordBuilder(const Options& options, const Sweep& sweep) : options_(options), sweep_(sweep) {}

  // Regions that ended in one run, in the order they opened. A failed region fails the
  // regions it is nested in too: their kernels are incomplete.
  void add_regions(std::vector<RegionRun> regions);
  // Measurements of the regions added so far. Measurements of unknown regions (runs that
  // were aborted) are dropped; one of a region already flushed (a record that arrived after
  // its config was collected) is a MeasurementError, never silently lost.
  void add_measurements(const std::vector<Measurement>& measurements);
  // Marks every region not yet flushed as failed: their measurements cannot be trusted.
  void fail_pending() noexcept;
  // Moves the records of every region added so far into `out`, in (config, run, region
  // opening, kernel) order. When `require_kernels`, throws MeasurementError naming the first
  // region that measured no kernel and did not fail.
  void flush(std::vector<Record>& out, bool require_kernels);
  // The mean SM clock, in kHz, of the kernels measured in each (config, run) since the last
  // call, from the measurements that carry one.
  std::map<std::pair<std::size_t, int>, double> take_clocks();

 private:
  bool ignored(const Measurement& m) const;
  void emit(const RegionRun& region, std::vector<Record>& out) const;

  const Options& options_;
  const Sweep& sweep_;
  std::vector<RegionRun> regions_;
  std::unordered_map<RegionId, std::size_t> index_;  // region id -> position in regions_
  std::unordered_map<RegionId, std::vector<const Measurement*>> kernels_;
  std::deque<Measurement> owned_;      // stable storage the pointers above point into
  RegionId last_flushed_ = kNoRegion;  // region ids only grow: at or below this, flushed
  std::map<std::pair<std::size_t, int>, std::pair<double, int>> clocks_;  // sum of Hz, count
};

}  // namespace kprof::detail
