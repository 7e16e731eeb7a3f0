// Where a measurement flushes the L2, decided once from the options (cache_control and the
// replay mode). Every measurement kind, its launch watch and the range profiler read the plan,
// never cache_control itself, so a new kind cannot flush differently by accident.
#pragma once

#include "kprof/options.hpp"

namespace kprof::detail {

struct FlushPlan {
  bool cold = false;            // cache_control="all": the flush buffer is taken
  bool before_kernels = false;  // the launch callback flushes before each kernel in a region
  bool before_ranges = false;   // one flush as each outermost region opens (a whole-region range)
  // The range profiler asks CUPTI (13.4 and later) to reset the L2 before each replayed pass:
  // kernel replay, where CUPTI replays each kernel's passes inside its launch.
  bool reset_per_pass = false;
};

// `options.replay_mode` is resolved (profile() does it before any backend is made).
FlushPlan flush_plan(const Options& options);

}  // namespace kprof::detail
