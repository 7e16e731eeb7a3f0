// Where each measurement flushes the L2 comes from flush_plan() alone: cache_control says
// whether, the replay mode's traits say where.
#include <gtest/gtest.h>

#include "core/measure/flush_plan.hpp"
#include "kprof/options.hpp"

using namespace kprof;
using detail::flush_plan;
using detail::FlushPlan;

namespace {

FlushPlan plan_of(CacheControl cache, ReplayMode mode) {
  Options o;
  o.cache_control = cache;
  o.replay_mode = mode;
  return flush_plan(o);
}

}  // namespace

TEST(FlushPlan, AWarmCacheFlushesNowhere) {
  for (ReplayMode mode : {ReplayMode::kernel, ReplayMode::range, ReplayMode::application}) {
    const FlushPlan p = plan_of(CacheControl::none, mode);
    EXPECT_FALSE(p.cold || p.before_kernels || p.before_ranges || p.reset_per_pass)
        << to_string(mode);
  }
}

TEST(FlushPlan, KernelReplayFlushesBeforeEachKernelAndAsksCuptiToResetBetweenPasses) {
  const FlushPlan p = plan_of(CacheControl::all, ReplayMode::kernel);
  EXPECT_TRUE(p.cold);
  EXPECT_TRUE(p.before_kernels);
  EXPECT_FALSE(p.before_ranges);
  EXPECT_TRUE(p.reset_per_pass);
}

TEST(FlushPlan, ApplicationReplayFlushesBeforeEachKernelOfEveryPass) {
  const FlushPlan p = plan_of(CacheControl::all, ReplayMode::application);
  EXPECT_TRUE(p.cold && p.before_kernels);
  EXPECT_FALSE(p.before_ranges || p.reset_per_pass);
}

TEST(FlushPlan, AWholeRegionRangeIsFlushedOnceAsItOpensNeverBetweenItsKernels) {
  const FlushPlan p = plan_of(CacheControl::all, ReplayMode::range);
  ASSERT_TRUE(traits_of(ReplayMode::range).whole_region);
  EXPECT_TRUE(p.cold && p.before_ranges);
  EXPECT_FALSE(p.before_kernels || p.reset_per_pass);
}
