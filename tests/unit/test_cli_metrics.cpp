// `kprof metrics`, run in-process for GH100: works without a GPU. Paths that take the chip
// from the current GPU are checked only on a machine without one (as CI).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/command_metrics.hpp"
#include "cli/commands.hpp"
#include "cli_runner.hpp"
#include "kprof/device.hpp"

using namespace kprof;
using namespace kprof::cli;

namespace {

using kprof::testing::Outcome;

Outcome metrics_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "metrics");
  return kprof::testing::kprof_cli(args);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The line of `text` that mentions `part`; empty if none.
std::string line_with(const std::string& text, const std::string& part) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (contains(line, part)) return line;
  return "";
}

bool machine_has_gpu() { return no_gpu_reason(query_system()).empty(); }

#define REQUIRE_CUPTI()                                                        \
  do {                                                                         \
    if (!query_system().built_with_cuda) GTEST_SKIP() << "built without CUDA"; \
  } while (0)

}  // namespace

TEST(CliMetrics, HelpDescribesTheOptions) {
  std::ostringstream out, err;
  EXPECT_EQ(kprof::cli::run({"help", "metrics"}, out, err), kExitOk);
  for (const char* part : {"usage: kprof metrics [--chip NAME] [--chips] [--search TEXT]",
                           "--describe NAME", "--sets", "--passes A,B,...", "no\nGPU or driver"})
    EXPECT_TRUE(contains(out.str(), part)) << part << "\n" << out.str();
  std::ostringstream usage, e2;
  kprof::cli::run({}, usage, e2);
  EXPECT_TRUE(contains(usage.str(), "  metrics")) << usage.str();
}

TEST(CliMetrics, SearchListsBaseMetricsWithTypeAndUnit) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chip", "GH100", "--search", "dram__bytes"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_TRUE(contains(o.out, "GH100: 3 base metrics match 'dram__bytes' (132 names")) << o.out;
  EXPECT_TRUE(contains(o.out, "dram__bytes_read   counter  byte  # of bytes read from DRAM"))
      << o.out;
  EXPECT_TRUE(contains(o.out, "\n  kprof metrics --chip GH100 --describe dram__bytes\n")) << o.out;
}

TEST(CliMetrics, SearchWithASuffixListsFullNames) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chip", "gh100", "--search", "dram__bytes_read.sum"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_TRUE(contains(o.out, "metric names match 'dram__bytes_read.sum'")) << o.out;
  EXPECT_TRUE(contains(o.out, "dram__bytes_read.sum.per_second")) << o.out;
  EXPECT_TRUE(contains(o.out, "byte/second")) << o.out;
}

TEST(CliMetrics, SearchWithoutMatchSaysSoAndSuggests) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chip", "GH100", "--search", "dram__bytes_red.sum"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_TRUE(contains(o.out, "no metric matches 'dram__bytes_red.sum'; closest names:")) << o.out;
  EXPECT_TRUE(contains(o.out, "  dram__bytes_read.sum\n")) << o.out;
}

TEST(CliMetrics, DescribeAFullName) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli(
      {"--chip", "GH100", "--describe", "sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  for (const char* part : {"sm__throughput.avg.pct_of_peak_sustained_elapsed (GH100)",
                           "type           throughput", "unit           percent",
                           "passes         8 (collected alone)", "base metric    sm__throughput"})
    EXPECT_TRUE(contains(o.out, part)) << part << "\n" << o.out;
}

TEST(CliMetrics, DescribeABaseMetricListsItsSuffixes) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chip", "GH100", "--describe", "dram__bytes_read"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_TRUE(contains(o.out, "dram__bytes_read (GH100, base metric)")) << o.out;
  EXPECT_TRUE(contains(o.out, "unit           byte")) << o.out;
  EXPECT_TRUE(contains(o.out, "names: add one of its 44 suffixes:")) << o.out;
  EXPECT_TRUE(contains(o.out, " .sum.per_second ")) << o.out;
  EXPECT_FALSE(contains(o.out, "passes")) << o.out;
}

TEST(CliMetrics, PassesOfAListAndOfASet) {
  REQUIRE_CUPTI();
  Outcome o = metrics_cli({"--chip", "GH100", "--passes",
                           "gpu__time_duration.sum, dram__bytes_read.sum,dram__bytes_write.sum"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_TRUE(contains(o.out, "GH100: 1 pass for these 3 metrics together")) << o.out;
  EXPECT_TRUE(contains(o.out, "dram__bytes_read.sum    1             byte")) << o.out;

  o = metrics_cli({"--chip", "GH100", "--passes", "set:speed-of-light"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_TRUE(contains(o.out, "GH100: 9 passes for these 7 metrics together")) << o.out;
  const std::string sm = line_with(o.out, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
  EXPECT_TRUE(contains(sm, " 8 ")) << o.out;
}

TEST(CliMetrics, SetsWithTheirPassCounts) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chip", "GH100", "--sets"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  for (const char* part :
       {"set:speed-of-light  (7 metrics, 9 passes on GH100)",
        "set:memory  (7 metrics, 2 passes on GH100)", "set:compute  (9 metrics, 3 passes on GH100)",
        "set:occupancy  (4 metrics, 1 pass on GH100)", "    lts__t_sector_hit_rate.pct\n",
        "set:launch  (16 metrics, 1 pass on GH100)", "    launch__waves_per_multiprocessor\n",
        "set:analysis  (25 metrics, 13 passes on GH100)"})
    EXPECT_TRUE(contains(o.out, part)) << part << "\n" << o.out;
}

TEST(CliMetrics, ChipsListsTheSupportedChips) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chips"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_TRUE(contains(o.out, "chips supported by this CUPTI's Profiler Host API:")) << o.out;
  EXPECT_TRUE(contains(o.out, " GH100")) << o.out;
}

TEST(CliMetrics, SummaryOfAChip) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chip", "GH100"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  // CUPTI 13.0's catalog of GH100; other versions list more or fewer metrics (12.6: 3471).
  if (kprof::query_system().cupti_version / 10 == 13000)
    EXPECT_TRUE(contains(o.out,
                         "GH100: 3650 base metrics (3389 counters, 205 ratios, 56 "
                         "throughputs), 150179"))
        << o.out;
  else
    EXPECT_TRUE(contains(o.out, " base metrics (")) << o.out;
  EXPECT_TRUE(contains(o.out, "15 launch statistics at no pass")) << o.out;
}

TEST(CliMetrics, UnknownMetricIsAUsageErrorNamingTheClosest) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chip", "GH100", "--describe", "dram__bytes_red.sum"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_EQ(o.out, "");
  EXPECT_TRUE(contains(o.err, "kprof metrics: metric='dram__bytes_red.sum' is not valid")) << o.err;
  EXPECT_TRUE(contains(o.err, "closest: 'dram__bytes_read.sum'")) << o.err;
  EXPECT_TRUE(contains(o.err, "usage: kprof metrics")) << o.err;
}

TEST(CliMetrics, UnknownChipIsAUsageErrorListingTheChips) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chip", "GX999", "--search", "dram"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_TRUE(contains(o.err, "chip='GX999' is not valid")) << o.err;
  EXPECT_TRUE(contains(o.err, "'GH100'")) << o.err;
}

TEST(CliMetrics, WithoutAGpuAChipMustBeNamed) {
  if (machine_has_gpu()) GTEST_SKIP() << "this machine has a GPU: its chip is the default";
  Outcome o = metrics_cli({"--search", "dram"});
  EXPECT_EQ(o.code, kExitUsage);
  if (query_system().built_with_cuda) {
    EXPECT_TRUE(contains(o.err, "--search needs a chip")) << o.err;
    EXPECT_TRUE(contains(o.err, "give --chip NAME (GH100 for H100 and H200")) << o.err;
  }
  // Sets need no chip; their pass counts do.
  o = metrics_cli({"--sets"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_TRUE(contains(o.out, "set:memory  (7 metrics)")) << o.out;
  EXPECT_TRUE(contains(o.out, "give --chip NAME")) << o.out;
}

TEST(CliMetrics, ListAndWrapHelpers) {
  EXPECT_EQ(split_list(" a,b ,, c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(wrap_text("one two three four", 10, "  "), "  one two\n  three\n  four\n");
  const Outcome o = metrics_cli({"--chip", "GH100", "--passes", " , "});
  EXPECT_EQ(o.code, kExitUsage);
}

TEST(CliMetrics, DescribeALaunchStatistic) {
  REQUIRE_CUPTI();
  const Outcome o = metrics_cli({"--chip", "GH100", "--describe", "launch__registers_per_thread"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_TRUE(contains(o.out, "launch statistic (from the kernel's launch, no counter)")) << o.out;
  EXPECT_TRUE(contains(o.out, "register/thread")) << o.out;
  EXPECT_FALSE(contains(o.out, "suffixes")) << o.out;
}
