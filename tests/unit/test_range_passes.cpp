// The range profiler's session bookkeeping, without a GPU (src/core/measure/range_passes.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/measure/range_passes.hpp"

using kprof::detail::first_changed_range;
using kprof::detail::graph_launch_with_auto_ranges;
using kprof::detail::kNoParentRange;
using kprof::detail::no_auto_ranges_from_older_cupti;
using kprof::detail::range_index;
using kprof::detail::ranges_with_kernels;
using kprof::detail::unpaired_auto_ranges;
using Kernels = std::vector<std::vector<std::string>>;

TEST(RangePasses, ARangeMeasuresWhatItOrARangeInsideItLaunched) {
  // 0: outer, with 1 and 2 nested in it, 3 nested in 2; 4: top level, nothing launched.
  const Kernels kernels = {{}, {"k1"}, {}, {"k3"}, {}};
  const std::vector<std::size_t> parent = {kNoParentRange, 0, 0, 2, kNoParentRange};
  EXPECT_EQ(ranges_with_kernels(kernels, parent),
            (std::vector<bool>{true, true, true, true, false}));
  EXPECT_EQ(ranges_with_kernels({{}, {}}, {kNoParentRange, 0}), (std::vector<bool>{false, false}));
}

TEST(RangePasses, LaterPassesMustLaunchWhatTheFirstDid) {
  const Kernels first = {{"scale"}, {"mul", "add"}};
  EXPECT_EQ(first_changed_range(first, first), std::nullopt);
  EXPECT_EQ(first_changed_range(first, {{"scale"}, {"mul"}}), 1u);       // one kernel fewer
  EXPECT_EQ(first_changed_range(first, {{"add"}, {"mul", "add"}}), 0u);  // another kernel
  EXPECT_EQ(first_changed_range(first, {{"scale"}}), 1u);  // range 1 not reached: none launched
  EXPECT_EQ(first_changed_range({{}}, {{}, {}}), std::nullopt);  // an extra empty range
}

TEST(RangePasses, ARangesIndexIsItsInnermostName) {
  EXPECT_EQ(range_index("3", 99), 3u);
  EXPECT_EQ(range_index("1/3", 99), 3u);
  EXPECT_EQ(range_index("0/12/7", 99), 7u);
  EXPECT_EQ(range_index("step", 99), 99u);
  EXPECT_EQ(range_index("1/", 99), 99u);
  EXPECT_EQ(range_index("3x", 99), 99u);
  EXPECT_EQ(range_index("", 99), 99u);
}

TEST(RangePasses, UnpairedAutoRangesSayWhatToDo) {
  const std::string graph = unpaired_auto_ranges("kernel", 0, 1, true);
  EXPECT_NE(graph.find("CUDA graph"), std::string::npos) << graph;
  EXPECT_NE(graph.find("replay_mode='range'"), std::string::npos) << graph;
  const std::string app = graph_launch_with_auto_ranges("application", "a graph in config 2");
  EXPECT_EQ(app.rfind("replay_mode='application' cannot tell", 0), 0u) << app;
  EXPECT_NE(app.find("(a graph in config 2)"), std::string::npos) << app;
  const std::string other = unpaired_auto_ranges("application", 3, 4, false);
  EXPECT_NE(other.find("3 kernel ranges for 4 launches"), std::string::npos) << other;
  EXPECT_NE(other.find("replay_mode='range'"), std::string::npos) << other;
}

// CUPTI 12.6 and 12.8 made no auto range under the H200's CUDA 13 driver (a standalone program
// as much as kprof): the error says so, and what works; other cases keep the general message.
TEST(RangePasses, NoAutoRangesFromAnOlderCuptiNameTheCupti) {
  const std::string older = no_auto_ranges_from_older_cupti("kernel", 0, 12, 24, 13000);
  EXPECT_EQ(older.rfind("CUPTI v24 made no per-kernel range for 12 launches under this driver "
                        "of CUDA 13.0",
                        0),
            0u)
      << older;
  EXPECT_NE(older.find("replay_mode='range' measures regions with this one"), std::string::npos);
  EXPECT_EQ(no_auto_ranges_from_older_cupti("kernel", 0, 12, 130001, 13000), "");  // CUPTI 13
  EXPECT_EQ(no_auto_ranges_from_older_cupti("kernel", 0, 12, 24, 12060), "");      // CUDA 12 driver
  EXPECT_EQ(no_auto_ranges_from_older_cupti("kernel", 3, 12, 24, 13000), "");      // some ranges
}
