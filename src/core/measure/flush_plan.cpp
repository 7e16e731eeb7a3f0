#include "core/measure/flush_plan.hpp"

namespace kprof::detail {

FlushPlan flush_plan(const Options& options) {
  FlushPlan plan;
  plan.cold = options.cache_control == CacheControl::all;
  if (!plan.cold) return plan;
  // A whole-region range holds the gaps between its kernels too: flushing before each kernel
  // would put the flushes inside the measured range.
  const bool whole_region = traits_of(options.replay_mode).whole_region;
  plan.before_kernels = !whole_region;
  plan.before_ranges = whole_region;
  plan.reset_per_pass = options.replay_mode == ReplayMode::kernel;
  return plan;
}

}  // namespace kprof::detail
