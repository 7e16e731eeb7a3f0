// Launch statistics: their names, refused where a region is measured as a whole (range replay),
// and their values from a kernel's launch through CUDA's occupancy calculator (no GPU: the
// attributes of an H200 are given). The catalog's side is in test_metric_catalog.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/measure/gpu_layer.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"
#include "kprof/options.hpp"
#ifdef KPROF_HAS_CUDA
#include "cuda/cupti/launch_statistics.hpp"
#endif

using namespace kprof;
using namespace kprof::metrics;

TEST(LaunchMetrics, NamesAreNsightComputesAndKnownOnlyToThemselves) {
  EXPECT_TRUE(is_launch_metric("launch__sm_count"));
  EXPECT_TRUE(is_launch_metric("sm__maximum_warps_per_active_cycle_pct"));
  EXPECT_FALSE(is_launch_metric("dram__bytes_read.sum"));
  EXPECT_FALSE(is_launch_metric("launch__sm_count.sum"));
  for (const LaunchMetric& m : launch_metrics()) EXPECT_GT(m.description.size(), 20u) << m.name;
  EXPECT_EQ(counter_metrics({"launch__grid_size", "dram__bytes_read.sum", "launch__sm_count"}),
            std::vector<std::string>{"dram__bytes_read.sum"});
  EXPECT_EQ(launch_metrics_in({"launch__grid_size", "dram__bytes_read.sum", "launch__sm_count"}),
            (std::vector<std::string>{"launch__grid_size", "launch__sm_count"}));
}

TEST(LaunchMetrics, RangeReplayRefusesThemNamingTheModesThatGiveThem) {
  Options o;
  o.replay_mode = ReplayMode::range;
  o.metrics = {"dram__bytes_read.sum", "launch__grid_size"};
  try {
    o.validate();
    FAIL() << "range replay took a launch statistic";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "metrics");
    EXPECT_NE(std::string(e.what()).find("'launch__grid_size' with replay_mode='range'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("'application'"), std::string::npos) << e.what();
  }
  o.replay_mode = ReplayMode::application;
  EXPECT_NO_THROW(o.validate());
  // A set of launch statistics alone would measure nothing in range replay; set:analysis
  // measures its counters there, without the launch statistics it holds.
  o.replay_mode = ReplayMode::range;
  o.metrics = {"set:launch"};
  EXPECT_THROW(o.validate(), OptionError);
  o.metrics = {"set:analysis"};
  EXPECT_NO_THROW(o.validate());
}

TEST(LaunchMetrics, ActivityRecordsMeasureTheDurationWithLaunchStatisticsInKernelReplay) {
  Options o;
  o.metrics = {std::string(kDurationMetric), "launch__grid_size"};
  EXPECT_TRUE(kprof::detail::activity_records_measure(o));
  o.metrics = {"set:launch"};
  EXPECT_TRUE(kprof::detail::activity_records_measure(o));
  o.metrics = {"launch__sm_count", "dram__bytes_read.sum"};
  EXPECT_FALSE(kprof::detail::activity_records_measure(o));
  o.metrics = {"launch__sm_count"};
  o.replay_mode = ReplayMode::application;
  EXPECT_FALSE(kprof::detail::activity_records_measure(o));
}

#ifdef KPROF_HAS_CUDA

namespace {

using kprof::detail::LaunchShape;
using kprof::detail::OccupancyDevice;

// An H200 as cudaDeviceGetAttribute describes it.
OccupancyDevice h200() {
  OccupancyDevice d;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.warp_size = 32;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.regs_per_block = 65536;
  d.regs_per_sm = 65536;
  d.shared_per_block = 49152;
  d.shared_per_sm = 233472;
  d.shared_per_block_optin = 232448;
  d.reserved_shared_per_block = 1024;
  return d;
}

LaunchShape shape(std::int64_t grid, std::int64_t block, int regs, std::int64_t static_shared,
                  std::int64_t config) {
  LaunchShape l;
  l.grid[0] = grid;
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = block;
  l.block[1] = l.block[2] = 1;
  l.registers_per_thread = regs;
  l.static_shared = static_shared;
  l.shared_config = config;
  return l;
}

std::map<std::string, double> values(const LaunchShape& l) {
  std::vector<std::string> all;
  for (const LaunchMetric& m : launch_metrics()) all.emplace_back(m.name);
  std::map<std::string, double> out;
  for (const auto& v : kprof::detail::launch_values(l, h200(), all)) out[v.metric] = v.value;
  return out;
}

}  // namespace

// 256 threads, 16 registers, no shared memory of its own, an 8 KiB configuration: the 1 KiB the
// driver reserves per block lets 8 blocks share it, as many as the warps allow.
TEST(LaunchStatistics, AStreamingKernelIsLimitedByWarpsAndTheSharedMemoryConfiguration) {
  auto v = values(shape(65536, 256, 16, 0, 8192));
  EXPECT_EQ(v["launch__grid_size"], 65536);
  EXPECT_EQ(v["launch__block_size"], 256);
  EXPECT_EQ(v["launch__thread_count"], 65536.0 * 256);
  EXPECT_EQ(v["launch__sm_count"], 132);
  EXPECT_EQ(v["launch__shared_mem_per_block_driver"], 1024);
  EXPECT_EQ(v["launch__shared_mem_config_size"], 8192);
  EXPECT_EQ(v["launch__occupancy_limit_blocks"], 32);
  EXPECT_EQ(v["launch__occupancy_limit_warps"], 8);
  EXPECT_EQ(v["launch__occupancy_limit_registers"], 16);
  EXPECT_EQ(v["launch__occupancy_limit_shared_mem"], 8);
  EXPECT_DOUBLE_EQ(v["launch__waves_per_multiprocessor"], 65536.0 / (8 * 132));
  EXPECT_DOUBLE_EQ(v["sm__maximum_warps_per_active_cycle_pct"], 100);
}

// 255 registers per thread: a warp takes 8,192 of a sub-partition's 16,384, so an SM holds 8
// warps, one block of 256 threads: 12.5% occupancy and 132 blocks per wave.
TEST(LaunchStatistics, RegistersLimitOccupancy) {
  auto v = values(shape(1000, 256, 255, 0, 8192));
  EXPECT_EQ(v["launch__occupancy_limit_registers"], 1);
  EXPECT_DOUBLE_EQ(v["sm__maximum_warps_per_active_cycle_pct"], 12.5);
  EXPECT_DOUBLE_EQ(v["launch__waves_per_multiprocessor"], 1000.0 / 132);
}

// 48 KiB of static shared memory in the largest configuration (228 KiB): 4 blocks of 49 KiB
// (with the driver's 1 KiB) fit.
TEST(LaunchStatistics, SharedMemoryLimitsOccupancyInTheConfigurationTheDriverChose) {
  auto v = values(shape(528, 128, 32, 48 * 1024, 233472));
  EXPECT_EQ(v["launch__shared_mem_per_block_static"], 48 * 1024);
  EXPECT_EQ(v["launch__occupancy_limit_shared_mem"], 4);
  EXPECT_DOUBLE_EQ(v["sm__maximum_warps_per_active_cycle_pct"], 4 * 4 * 100.0 / 64);
  EXPECT_DOUBLE_EQ(v["launch__waves_per_multiprocessor"], 1.0);
}

TEST(LaunchStatistics, OnlyTheAskedStatisticsComeBackInTheirOrderWithUnits) {
  const auto v = kprof::detail::launch_values(
      shape(10, 64, 8, 0, 0), h200(),
      {"launch__sm_count", "dram__bytes_read.sum", "launch__shared_mem_per_block_dynamic"});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].metric, "launch__sm_count");
  EXPECT_EQ(v[0].unit, "SM");
  EXPECT_EQ(v[1].metric, "launch__shared_mem_per_block_dynamic");
  EXPECT_EQ(v[1].unit, "B");
  EXPECT_EQ(v[1].value, 0);
}

TEST(LaunchStatistics, AnEmptyBlockHasNoOccupancy) {
  auto v = values(shape(10, 0, 8, 0, 0));
  EXPECT_TRUE(std::isnan(v["sm__maximum_warps_per_active_cycle_pct"]));
  EXPECT_TRUE(std::isnan(v["launch__waves_per_multiprocessor"]));
  EXPECT_EQ(v["launch__grid_size"], 10);
}

#endif  // KPROF_HAS_CUDA
