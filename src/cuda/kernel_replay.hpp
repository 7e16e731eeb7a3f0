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
#pragma once

#include <vector>

#include "core/backend.hpp"
#include "cuda/counter_session.hpp"

namespace kprof::detail {

class KernelReplay final : public Backend {
 public:
  explicit KernelReplay(const Options& options) : session_(options) {}
  ~KernelReplay() override { stop(); }

  SessionInfo describe() override { return session_.describe(); }
  void start(const Options& options) override;
  void measure(SweepRuns& runs) override;
  std::vector<Measurement> salvage() override { return collect(); }
  void stop() noexcept override;
  double profiler_seconds() const override { return session_.profiler_seconds(); }

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
  bool flushes() const { return session_.options().cache_control == CacheControl::all; }
  // More than one pass with flushes: each flush runs with the profiler paused.
  bool pauses_for_flushes() const { return flushes() && session_.profiler().passes() > 1; }
  CounterSession session_;
  SessionCapacity capacity_;
  std::size_t logged_before_run_ = 0;  // launches logged when the run began
  std::vector<Measurement> drained_;   // sessions decoded before collect()
};

}  // namespace kprof::detail
