#include "cuda/backends/user_replay.hpp"

#include <cuda_runtime_api.h>

#include <utility>

#include "core/measure/sweep_runs.hpp"
#include "core/measure/unmeasured_calls.hpp"
#include "cuda/device/cuda_check.hpp"

namespace kprof::detail {

void UserReplay::start_counting(const Options& options, RegionTracker::RangeHooks hooks) {
  stop();
  capacity_ = {};
  counters_.start(options);
  RegionTracker::instance().set_range_hooks(std::move(hooks));
  hooks_installed_ = true;
}

void UserReplay::stop() noexcept {
  if (hooks_installed_) RegionTracker::instance().set_range_hooks({});
  hooks_installed_ = false;
  counters_.stop();
}

void UserReplay::measure(SweepRuns& runs) {
  // No session is open during the unmeasured calls, so nothing of them was profiled.
  UnmeasuredCalls calls =
      counters_.unmeasured_calls(runs, [this](std::size_t config, std::size_t regions) {
        // Its kernels finish before any range opens, and their faults are its config's.
        check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after an unmeasured call)");
        return call_done(config, regions);
      });
  run_passes(runs, *this, calls);
}

void UserReplay::begin_pass() {
  regions_.begin_pass();
  (void)counters_.attribution().take_launches();
  counters_.profiler().start_pass();
}

}  // namespace kprof::detail
