// Launch statistics on the GPU: the demo's scale kernel over 2^26 floats is 262,144 blocks of
// 256 threads. Alone (activity records) and beside counters in kernel replay of one and of
// several passes and in application replay, every mode gives the same launch.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"
#include "kprof/metrics.hpp"

namespace kprof_test {
namespace {

constexpr std::size_t kN = std::size_t{1} << 26;
constexpr double kBlocks = kN / 256.0;

std::map<std::string, double> launch_means(const kprof::Results& results) {
  std::map<std::string, double> out;
  for (const auto& row : results.rows())
    if (row.annotation == "scale" && row.config == 0) out[row.metric] = row.mean;
  return out;
}

kprof::Results scale_profile(std::vector<std::string> metrics, kprof::ReplayMode replay) {
  kprof::Options o = duration_options(kprof::CacheControl::all, 3);
  o.metrics = std::move(metrics);
  o.replay_mode = replay;
  kprof::demo::Kernels kernels(kN);
  return kprof::profile(o, [&] {
    kprof::Annotation a("scale");
    kernels.scale(kN);
  });
}

int sm_count() {
  int n = 0;
  cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0);
  return n;
}

void print(const char* title, const std::map<std::string, double>& values) {
  for (const auto& [metric, value] : values)
    std::printf("[ RESULT ] %s: %-40s %.6g\n", title, metric.c_str(), value);
}

}  // namespace

TEST(LaunchStatistics, TheLaunchSetAloneComesFromActivityRecordsAtNoPass) {
  const kprof::Results r = scale_profile({"set:launch"}, kprof::ReplayMode::kernel);
  EXPECT_EQ(r.session().backend, "cupti-activity");
  const auto v = launch_means(r);
  print("set:launch", v);
  EXPECT_EQ(v.at("launch__grid_size"), kBlocks);
  EXPECT_EQ(v.at("launch__block_size"), 256);
  EXPECT_EQ(v.at("launch__thread_count"), static_cast<double>(kN));
  EXPECT_EQ(v.at("launch__sm_count"), sm_count());
  EXPECT_GT(v.at("launch__registers_per_thread"), 0);
  EXPECT_LT(v.at("launch__registers_per_thread"), 256);
  EXPECT_EQ(v.at("launch__shared_mem_per_block_static"), 0);
  EXPECT_EQ(v.at("launch__shared_mem_per_block_dynamic"), 0);
  EXPECT_EQ(v.at("launch__occupancy_limit_warps"), 8);  // 64 warps per SM, 8 per block
  const double blocks_per_sm = std::min(
      {v.at("launch__occupancy_limit_warps"), v.at("launch__occupancy_limit_blocks"),
       v.at("launch__occupancy_limit_registers"), v.at("launch__occupancy_limit_shared_mem")});
  EXPECT_DOUBLE_EQ(v.at("launch__waves_per_multiprocessor"),
                   kBlocks / (blocks_per_sm * sm_count()));
  EXPECT_DOUBLE_EQ(v.at("sm__maximum_warps_per_active_cycle_pct"), blocks_per_sm * 8 * 100 / 64);
  EXPECT_GT(v.at(std::string(kprof::kDurationMetric)), 50e3);  // the set's duration, > 50 us
}

TEST(LaunchStatistics, BesideCountersEveryReplayModeGivesTheSameLaunch) {
  const std::vector<std::string> launch = {"launch__grid_size", "launch__block_size",
                                           "launch__registers_per_thread",
                                           "sm__maximum_warps_per_active_cycle_pct"};
  const auto alone = launch_means(scale_profile(launch, kprof::ReplayMode::kernel));
  const std::string read = "dram__bytes_read.sum";
  const std::string sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
  struct Case {
    const char* name;
    std::vector<std::string> counters;
    kprof::ReplayMode replay;
  };
  for (const Case& c : {Case{"kernel, 1 pass", {read}, kprof::ReplayMode::kernel},
                        Case{"kernel, passes", {read, sm}, kprof::ReplayMode::kernel},
                        Case{"application", {read, sm}, kprof::ReplayMode::application}}) {
    std::vector<std::string> metrics = c.counters;
    metrics.insert(metrics.end(), launch.begin(), launch.end());
    const kprof::Results r = scale_profile(metrics, c.replay);
    const auto v = launch_means(r);
    print(c.name, v);
    EXPECT_EQ(r.session().backend, "cupti-range-profiler") << c.name;
    for (const std::string& m : launch) EXPECT_EQ(v.at(m), alone.at(m)) << c.name << ": " << m;
    EXPECT_NEAR(v.at(read) / (4.0 * kN), 1.0, 0.02) << c.name;  // the counters are still there
    // Every run measured every statistic.
    for (const auto& row : r.rows()) EXPECT_EQ(row.num_runs, 3) << c.name << ": " << row.metric;
  }
}

TEST(LaunchStatistics, LaunchStatisticsAloneInApplicationReplayReportNoCounter) {
  const kprof::Results r =
      scale_profile({"launch__grid_size", "launch__sm_count"}, kprof::ReplayMode::application);
  const auto v = launch_means(r);
  print("application, launch alone", v);
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v.at("launch__grid_size"), kBlocks);
  EXPECT_EQ(v.at("launch__sm_count"), sm_count());
}

}  // namespace kprof_test
