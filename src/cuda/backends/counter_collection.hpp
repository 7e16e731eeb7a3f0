// What the three counter backends (kernel, range and application replay) share: a profile's
// collection of counters. Its launch watch (the L2 flush of the options' FlushPlan, the launch
// callbacks with their log of launches), the metrics the range profiler collects and their
// units, the range profiler itself (which runs in sessions of ranges: "session" here always
// means CUPTI's), and the way its values become measurements.
//
// Durations come from the counter gpu__time_duration.sum: activity records carry no duration
// while the range profiler runs. The SM clock the kernels ran at rides along
// (gpc__cycles_elapsed.avg.per_second) where it costs no pass.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/measure/backend.hpp"
#include "core/measure/pass_pause.hpp"
#include "core/measure/unmeasured_calls.hpp"
#include "cuda/backends/launch_watch.hpp"
#include "cuda/cupti/kernel_names.hpp"
#include "cuda/cupti/range_profiler.hpp"
#include "kprof/options.hpp"

namespace kprof::detail {

// The counter that says which SM clock the kernels ran at.
inline constexpr const char* kClockMetric = "gpc__cycles_elapsed.avg.per_second";

// Ranges a session holds at first. The first cuptiRangeProfilerStart of a session costs time in
// proportion to its counter data's capacity (H200: 0.16 s at 16 ranges, 1.0 s at 1,024, 14.6 s
// at 16,384; docs/validation.md), and a later session on the same profiler ~10 ms, so that
// small sessions win (1,000 ranges: 0.80 s in sessions of 64, 1.70 s in one of 1,024). The
// unmeasured call of each config tells how many ranges a run needs before the first session.
inline constexpr std::size_t kSessionRanges = 64;

using Launch = LaunchAttribution::Launch;

// Disables the range profiler a stopped CounterCollection keeps enabled, idle, for the calls after
// its profile (Backend::release). One is kept per process, and every backend's start() calls
// this first: a profile started meanwhile on another thread finds none enabled. Never throws.
void release_kept_range_profiler() noexcept;

// The ranges the next session holds: kSessionRanges at first, doubled (up to 65,536) while one
// run needs more than a quarter of it.
class SessionCapacity {
 public:
  std::size_t ranges() const { return ranges_; }
  void fit(std::size_t run_ranges);

 private:
  std::size_t ranges_ = kSessionRanges;
};

// Whether a log of launches holds a CUDA graph launch (one launch, several kernels).
bool graph_launched(const std::vector<Launch>& launches);

// The auto ranges a run takes that launches what an unmeasured call (which is never flushed)
// logged: one per launch, and with `flush_ranges` one per flush, which precedes every launch
// in a region.
std::size_t ranges_of_run(const std::vector<Launch>& call_launches, bool flush_ranges);

class CounterCollection {
 public:
  explicit CounterCollection(const Options& options) : options_(options) {}
  ~CounterCollection() {
    stop();
    release_kept_range_profiler();
  }
  CounterCollection(const CounterCollection&) = delete;
  CounterCollection& operator=(const CounterCollection&) = delete;

  const Options& options() const { return options_; }
  // SessionInfo for the counter backends: the passes the metrics need on this GPU.
  SessionInfo describe() const;
  // Starts the launch watch with the options' flush plan and enables the range profiler for
  // the metrics; launches are logged from then on. While another process profiles the GPU's
  // counters: waits up to options.wait_for_counters, then CountersBusyError (also from the
  // first pass).
  void start(const Options& options);
  // Wall time inside CUPTI is kept for profiler_seconds(). The range profiler stays enabled,
  // idle, until release_kept_range_profiler() (Backend::release says why). Never throws.
  void stop() noexcept;

  RangeProfiler& profiler() { return *profiler_; }
  const RangeProfiler& profiler() const { return *profiler_; }
  bool started() const { return profiler_ != nullptr; }
  LaunchAttribution& attribution() { return watch_.attribution(); }
  const FlushPlan& flush_plan() const { return watch_.plan(); }
  L2Flush& flush() { return watch_.flush(); }
  PassPause& flush_pause() { return flush_pause_; }

  // The sweep's unmeasured calls, made without L2 flushes (they need no cold L2; the flushes
  // come back however the calls end).
  UnmeasuredCalls unmeasured_calls(SweepRuns& runs, const UnmeasuredCalls::Done& done);
  // The launches logged since the last call; raises what the launch callback ran into.
  std::vector<Launch> take_launches();
  // Auto ranges (one per launch, in launch order) paired with the launches they measured; the
  // launch records kept so far are spent (take_launches keeps those of the launches it takes).
  std::vector<Measurement> kernel_measurements(const std::vector<RangeValues>& ranges,
                                               const std::vector<Launch>& launches);
  Measurement measurement(RegionId region, std::string mangled, std::uint64_t order,
                          const std::vector<double>& values);
  std::string demangled(const std::string& mangled) { return names_.demangled(mangled); }
  // "2 kernel(s) (a, b)", for messages.
  std::string kernel_list(const std::vector<std::string>& mangled);
  // From the handler of a failed Stop: CUPTI 13.0 fails the Stop of auto ranges under its user
  // replay (kernel replay's 1-pass sessions, application replay) after a CUDA graph launch,
  // which is said as such; any other failure is rethrown.
  [[noreturn]] void raise_failed_stop(const char* what, bool after_graph) const;
  double profiler_seconds() const { return profiler_seconds_; }

 private:
  std::vector<std::string> collected_metrics() const;
  // Launch statistics asked for: their kernels' activity records are kept.
  void start_launch_records();
  // The activity records delivered so far, kept by correlation id (after the GPU is done).
  void keep_launch_records();
  void add_launch_values(Measurement& m, const Launch& launch);
  double cupti_seconds() const noexcept;
  void log_costs() const noexcept;

  Options options_;
  std::vector<std::string> metrics_;        // what the profiler collects, in its order
  std::vector<std::string> units_;          // per metric
  std::vector<bool> reported_;              // per metric: asked for (else collected for the clock)
  std::vector<std::string> launch_wanted_;  // launch statistics asked for
  // By correlation id: the records of the measured kernel and of whatever else ran under its
  // launch (the profiler's own work), told apart by name.
  std::unordered_multimap<std::uint32_t, KernelRecord> launch_records_;
  int clock_index_ = -1;  // kClockMetric's position in metrics_, or -1
  double profiler_seconds_ = std::numeric_limits<double>::quiet_NaN();  // of the last profile
  PassPause flush_pause_;  // outlives the watch's callbacks
  LaunchWatch watch_;
  // The profile's wait for the counters (wait_for_counters), which the profiler takes them
  // through; made by start(), it outlives the profiler.
  std::unique_ptr<CounterWait> counter_wait_;
  std::unique_ptr<RangeProfiler> profiler_;
  KernelNames names_;
};

}  // namespace kprof::detail
