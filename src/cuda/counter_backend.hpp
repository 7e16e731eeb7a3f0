// Hardware counters from the CUPTI Range Profiler, in one of three replay modes:
//
//   replay_mode="kernel": auto ranges, one per kernel; CUPTI replays each kernel once per pass
//   (saving and restoring the memory it touches), so the benchmark runs once per run. A 1-pass
//   set needs no replay and runs its auto ranges under CUPTI's user replay, which spares kernel
//   replay's ~12 ms per kernel. The ranges carry only their order: the launch callback's log of
//   launches gives each one its region and kernel.
//   replay_mode="range": one user range per annotation (nested annotations nest); the engine
//   runs the benchmark once per pass (Backend::user_replay), pass-major over a session.
//   replay_mode="application": auto ranges as in kernel replay, passes as in range replay: the
//   engine runs the benchmark once per pass, and every pass must launch the same kernels.
//
// Durations come from the counter gpu__time_duration.sum: activity records carry no duration
// while the range profiler runs. cache_control="all" flushes the L2 before every kernel in
// kernel and application replay (before its launch; in kernel replay of several passes between
// a Stop and a Start of the profiler, so that the flush is no replayed range: CUPTI before 13.4
// restores the kernel's memory before each later pass and cannot flush, 13.4 resets the L2
// itself) and before every top-level region in every pass of range replay (a flush and a
// synchronization before the range opens). In application replay each flush is a range of
// its own, measured and dropped.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/backend.hpp"
#include "core/pass_pause.hpp"
#include "cuda/cupti_subscriber.hpp"
#include "cuda/kernel_names.hpp"
#include "cuda/l2_flush.hpp"
#include "cuda/launch_attribution.hpp"
#include "cuda/range_profiler.hpp"
#include "kprof/options.hpp"

namespace kprof::detail {

// The counter that says which SM clock the kernels ran at.
inline constexpr const char* kClockMetric = "gpc__cycles_elapsed.avg.per_second";

// Ranges a session holds at first. The first cuptiRangeProfilerStart of a session costs time in
// proportion to its counter data's capacity (H200: 0.16 s at 16 ranges, 1.0 s at 1,024, 14.6 s
// at 16,384; docs/validation.md), and a later session on the same profiler ~10 ms, so that
// small sessions win (1,000 ranges: 0.80 s in sessions of 64, 1.70 s in one of 1,024). The
// engine's unmeasured first call tells how many ranges a run needs before the first session.
inline constexpr std::size_t kSessionRanges = 64;

class CounterBackend final : public Backend {
 public:
  explicit CounterBackend(const Options& options);
  ~CounterBackend() override { stop(); }

  SessionInfo describe() override;
  void start(const Options& options) override;
  std::vector<Measurement> collect() override;
  void stop() noexcept override;
  void before_run(std::size_t config) override;
  void after_run() override;

  bool user_replay() const override { return options_.replay_mode != ReplayMode::kernel; }
  bool collects_per_config() const override { return false; }
  std::size_t session_capacity() const override { return capacity_; }
  void fit_run(std::size_t ranges) override;
  void begin_session(int depth) override;
  std::size_t ranges_of_run(std::size_t regions) const override {
    return user_ranges() ? regions : last_run_ranges_;
  }
  // CUPTI repeats every pass once per nesting level of user ranges.
  int passes_per_session(int depth) const override {
    const int levels = user_ranges() ? depth : 1;
    return profiler_ ? profiler_->passes() * levels : levels;
  }
  void begin_pass() override;
  bool end_pass() override;
  bool wants_unmeasured_calls() const override { return true; }
  std::size_t unmeasured_call_done(std::size_t config, std::size_t regions) override;
  double profiler_seconds() const override { return profiler_seconds_; }

 private:
  // The metrics the profiler collects: the user's, plus the clock when it costs no pass.
  std::vector<std::string> collected_metrics() const;
  void start_kernel_session();
  void drain_kernel_session();
  std::vector<Measurement> kernel_measurements(
      const std::vector<RangeValues>& ranges,
      const std::vector<LaunchAttribution::Launch>& launches);
  std::vector<Measurement> range_measurements(const std::vector<RangeValues>& ranges);
  Measurement measurement(RegionId region, std::string mangled, std::uint64_t order,
                          const std::vector<double>& values);
  void on_region_open(RegionId id, const std::string& path, std::size_t depth);
  void on_region_close(RegionId id);
  void check_pass_launches(const std::vector<LaunchAttribution::Launch>& launches);
  std::vector<std::string> launch_order(
      const std::vector<LaunchAttribution::Launch>& launches) const;
  // Range replay: one user range per region (application replay: one auto range per kernel).
  bool user_ranges() const { return options_.replay_mode == ReplayMode::range; }
  // Range or application replay: a pass is running, so regions opening now count.
  bool in_user_pass() const { return profiler_ != nullptr && profiler_->in_pass(); }
  // Kernel replay of several passes with cache_control="all" on a CUPTI that cannot reset the
  // L2 between them: says so, once.
  void warn_of_warm_later_passes() const;
  void log_costs() const noexcept;
  double cupti_seconds() const noexcept;
  // cache_control="all" in kernel and application replay: a flush before every kernel, from
  // the launch callback (range replay flushes before each top-level range: a flush inside a
  // range would be counted).
  bool flushes_before_kernels() const;
  // Kernel replay with cache_control="all" (CUPTI replays each kernel, flush included).
  bool kernel_replay_flushes() const;
  // Kernel replay of more than one pass: the flush before each kernel is no range.
  bool pauses_for_flushes() const;
  // From the handler of a failed Stop: CUPTI 13.0 fails the Stop of auto ranges under its
  // user replay (kernel replay's 1-pass sessions, application replay) after a CUDA graph
  // launch, which is said as such; any other failure is rethrown.
  [[noreturn]] void raise_failed_stop(const char* what, bool after_graph) const;
  // The launches logged since the last call; raises what the launch callback ran into.
  std::vector<LaunchAttribution::Launch> take_launches();
  std::string kernel_list(const std::vector<std::string>& mangled);

  Options options_;
  std::vector<std::string> metrics_;  // what the profiler collects, in its order
  std::vector<std::string> units_;    // per metric
  std::vector<bool> reported_;        // per metric: asked for (else collected for the clock)
  int clock_index_ = -1;              // kClockMetric's position in metrics_, or -1
  double profiler_seconds_ = std::numeric_limits<double>::quiet_NaN();  // of the last profile
  L2Flush flush_;
  PassPause flush_pause_;
  CuptiSubscriber subscriber_;
  std::unique_ptr<LaunchAttribution> attribution_;  // kept after stop(), see ActivityBackend
  std::unique_ptr<RangeProfiler> profiler_;
  KernelNames names_;
  std::size_t capacity_ = kSessionRanges;  // ranges per session
  std::vector<std::size_t> run_ranges_;    // per config: ranges its unmeasured call needed
  std::size_t logged_before_run_ = 0;      // launches logged when the run began
  std::size_t last_run_ranges_ = 0;        // launches of the last run (application replay)
  std::vector<Measurement> drained_;       // kernel replay: sessions decoded before collect()

  // Range and application replay: the n-th region opened in a pass is region n in every pass
  // (range "n" in range replay).
  bool hooks_installed_ = false;
  bool session_complete_ = false;  // every pass of the current session has run
  int session_depth_ = 1;          // nesting levels the session profiles
  int pass_ = 0;
  std::size_t opened_in_pass_ = 0;
  std::vector<RegionId> first_pass_regions_;                    // range n -> its region
  std::vector<std::string> first_pass_paths_;                   // range n -> its path
  std::vector<std::size_t> parent_range_;                       // range n -> enclosing range
  std::vector<std::vector<std::string>> first_pass_kernels_;    // range n -> its own kernels
  std::unordered_map<RegionId, std::size_t> range_of_;          // this pass's region -> n
  std::vector<std::size_t> open_ranges_;                        // this pass's open ranges
  std::vector<LaunchAttribution::Launch> first_pass_launches_;  // application: auto range i
  std::vector<std::string> first_pass_order_;  // application: launch_order of the first pass
};

}  // namespace kprof::detail
