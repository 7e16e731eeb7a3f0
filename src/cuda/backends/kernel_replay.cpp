// Hardware counters in kernel replay (replay_mode="kernel", Nsight Compute's default): auto
// ranges, one per kernel, in sessions that stay open while the benchmark runs, so that the
// benchmark runs once per run. The ranges carry only their order: the launch callback's log of
// launches gives each one its region and kernel.
//
// A 1-pass set needs no replay: its auto ranges run under CUPTI's user replay, which spares
// kernel replay's ~12 ms per kernel on the H200. With more passes CUPTI replays each kernel once
// per pass, saving and restoring the memory it touches; the L2 flush before each kernel
// (cache_control="all") then runs between a Stop and a Start of the profiler (PassPause), so
// that it is no replayed range. CUPTI before 13.4 restores the kernel's memory before each later
// pass and cannot flush the L2 between them; 13.4 and later reset it themselves.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/measure/backend.hpp"
#include "core/measure/backend_registry.hpp"
#include "core/measure/sweep_runs.hpp"
#include "core/measure/unmeasured_calls.hpp"
#include "cuda/backends/counter_collection.hpp"
#include "cuda/device/cuda_check.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"

namespace kprof::detail {
namespace {

class KernelReplay final : public Backend {
 public:
  explicit KernelReplay(const Options& options) : counters_(options) {}
  ~KernelReplay() override { stop(); }

  SessionInfo describe() override { return counters_.describe(); }
  void start(const Options& options) override;
  void measure(SweepRuns& runs) override;
  std::vector<Measurement> salvage() override { return collect(); }
  void stop() noexcept override;
  void release() noexcept override { release_kept_range_profiler(); }
  double profiler_seconds() const override { return counters_.profiler_seconds(); }

 private:
  // The unmeasured call of a config: the launches a run of it takes (flushes that will be
  // paused are no ranges).
  std::size_t call_done(std::size_t regions);
  // A session is open whenever the benchmark runs, with room for the run as its config's
  // unmeasured call counted it (`needs` ranges).
  void before_run(std::size_t needs);
  // A session is decoded before the next run could overflow it: room is kept for twice the
  // largest run seen.
  void after_run();
  void start_session();
  void drain_session();
  std::vector<Measurement> collect();
  // Several passes with cache_control="all" on a CUPTI that cannot reset the L2 between them:
  // says so, once.
  void warn_of_warm_later_passes() const;
  bool flushes() const { return counters_.flush_plan().before_kernels; }
  // More than one pass with flushes: each flush runs with the profiler paused.
  bool pauses_for_flushes() const { return flushes() && counters_.profiler().passes() > 1; }
  CounterCollection counters_;
  SessionCapacity capacity_;
  std::size_t logged_before_run_ = 0;  // launches logged when the run began
  std::vector<Measurement> drained_;   // sessions decoded before collect()
};

[[maybe_unused]] const bool kRegistered = register_backend(
    ReplayMode::kernel, [](const Options& o) { return std::make_unique<KernelReplay>(o); });

}  // namespace

void KernelReplay::start(const Options& options) {
  stop();
  capacity_ = {};
  logged_before_run_ = 0;
  counters_.start(options);
  warn_of_warm_later_passes();
  if (pauses_for_flushes()) counters_.flush_pause().arm(&counters_.profiler());
}

void KernelReplay::stop() noexcept {
  counters_.stop();
  drained_.clear();
}

void KernelReplay::measure(SweepRuns& runs) {
  UnmeasuredCalls calls = counters_.unmeasured_calls(
      runs, [this](std::size_t, std::size_t regions) { return call_done(regions); });
  const SweepRuns::Collect collect_values = [this] { return collect(); };
  const SweepRuns::RunHooks hooks{[this, &calls](std::size_t c) { before_run(calls.ranges(c)); },
                                  [this] { after_run(); }};
  for (std::size_t c = 0; c < runs.configs(); ++c) {
    calls.raise_if_failed(c);
    runs.run_config(c, collect_values, hooks);
  }
  // Decoded once at the end rather than per config: a session ends in ~ms.
  if (!runs.options().stopping) runs.collect(collect_values);
}

void KernelReplay::warn_of_warm_later_passes() const {
  const RangeProfiler& profiler = counters_.profiler();
  if (!flushes() || profiler.passes() == 1 || profiler.resets_cache_per_pass() ||
      counters_.options().verbosity == Verbosity::silent)
    return;
  log_once("warm-later-passes",
           "[kprof] replay_mode='kernel', " + std::to_string(profiler.passes()) +
               " passes: this CUPTI (before 13.4) restores each kernel's memory before its "
               "later passes and cannot flush the L2 between them, so those passes start warm "
               "(SM and DRAM % of kernels under ~100 us can read several points off Nsight "
               "Compute's); replay_mode='application' flushes before every pass");
}

// No session is open during the call and nothing of it was flushed: a run of it takes a range
// per launch, and one per flush where the flushes are ranges (not paused).
std::size_t KernelReplay::call_done(std::size_t /*regions*/) {
  // Its kernels finish before any range opens, and their faults are its config's.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after an unmeasured call)");
  const std::size_t ranges =
      ranges_of_run(counters_.take_launches(), flushes() && !pauses_for_flushes());
  capacity_.fit(ranges);
  return ranges;
}

void KernelReplay::before_run(std::size_t needs) {
  counters_.flush_pause().rethrow();  // a pass it failed to stop or start leaves it unusable
  RangeProfiler& profiler = counters_.profiler();
  if (profiler.in_pass() &&
      counters_.attribution().launches_logged() + needs > profiler.max_ranges())
    drain_session();
  if (profiler.in_pass()) return;
  (void)counters_.attribution().take_launches();  // launches between runs belong to no session
  start_session();
}

void KernelReplay::after_run() {
  const std::size_t logged = counters_.attribution().launches_logged();
  const std::size_t run_ranges = logged - std::min(logged, logged_before_run_);
  logged_before_run_ = logged;
  capacity_.fit(run_ranges);
  // The open session holds what it was created for, whatever the next one will hold.
  if (logged + 2 * run_ranges <= counters_.profiler().max_ranges()) return;
  drain_session();
}

void KernelReplay::start_session() {
  RangeProfiler& profiler = counters_.profiler();
  profiler.begin_session(profiler.passes() == 1 ? RangeProfiler::Mode::auto_range_user_replay
                                                : RangeProfiler::Mode::kernel_replay,
                         capacity_.ranges());
  profiler.start_pass();
}

void KernelReplay::drain_session() {
  counters_.flush_pause().rethrow();
  if (!counters_.started() || !counters_.profiler().in_pass()) return;
  RangeProfiler& profiler = counters_.profiler();
  // A fault of the benchmark's kernels is its own, whatever the profiler makes of it.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  try {
    // Kernel replay ran every pass inside the kernel launches; a 1-pass set has but one.
    if (!profiler.end_pass())
      throw MeasurementError(
          "kprof internal error: the range profiler wants another pass of a kernel-replay "
          "session");
  } catch (const CudaError& e) {  // a 1-pass session runs auto ranges under user replay
    counters_.raise_failed_stop(
        e.what(),
        profiler.passes() == 1 && graph_launched(counters_.attribution().take_launches()));
  }
  const std::vector<RangeValues> ranges = profiler.decode();
  std::vector<Measurement> measured =
      counters_.kernel_measurements(ranges, counters_.take_launches());
  std::move(measured.begin(), measured.end(), std::back_inserter(drained_));
  logged_before_run_ = 0;
}

std::vector<Measurement> KernelReplay::collect() {
  if (!counters_.started()) throw CudaError("kprof internal error: collect() before start()");
  drain_session();
  return std::exchange(drained_, {});
}

}  // namespace kprof::detail
