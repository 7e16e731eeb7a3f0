// What range and application replay share: the benchmark runs once per pass, pass-major over
// sessions of runs (run_passes), after one unmeasured call per config (UnmeasuredCalls); the
// counter collection, the capacity of its range profiler's sessions and the first pass's regions
// (PassRegions). Each of the two
// backends fills in what a session, a pass and a run are to it.
#pragma once

#include <vector>

#include "core/measure/backend.hpp"
#include "core/measure/pass_loop.hpp"
#include "core/measure/region_tracker.hpp"
#include "cuda/backends/counter_collection.hpp"
#include "cuda/backends/pass_regions.hpp"

namespace kprof::detail {

class UserReplay : public Backend, protected PassSessions {
 public:
  explicit UserReplay(const Options& options) : counters_(options) {}
  ~UserReplay() override { stop(); }

  SessionInfo describe() override { return counters_.describe(); }
  void measure(SweepRuns& runs) override;
  // A session whose passes did not all run holds nothing usable.
  std::vector<Measurement> salvage() override { return {}; }
  void stop() noexcept override;
  void release() noexcept override { release_kept_range_profiler(); }
  double profiler_seconds() const override { return counters_.profiler_seconds(); }

 protected:
  // Starts collecting counters and listens to the profiling thread's regions through `hooks`.
  void start_counting(const Options& options, RegionTracker::RangeHooks hooks);
  // The unmeasured call of `config`, which opened `regions` regions: the ranges a run of it
  // takes. Its kernels are done and its launches forgotten before this is called.
  virtual std::size_t call_done(std::size_t config, std::size_t regions) = 0;
  // Whether a pass is running (the region hooks act only then).
  bool in_pass() const { return counters_.started() && counters_.profiler().in_pass(); }
  // What every pass does first: the regions are numbered anew, and the launches made between
  // passes belong to no range.
  void begin_pass() override;
  std::size_t session_capacity() const override { return capacity_.ranges(); }

  CounterCollection counters_;
  SessionCapacity capacity_;
  PassRegions regions_;

 private:
  bool hooks_installed_ = false;
};

}  // namespace kprof::detail
