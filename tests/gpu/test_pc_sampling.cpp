// CUPTI's PC sampling (cuda/cupti/pc_sampler.hpp) on kernels whose dominant stall reason is
// known by construction: the reason with the most samples is the one the kernel was built for.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "core/measure/gpu_layer.hpp"
#include "cuda/cupti/module_code.hpp"
#include "cuda/cupti/pc_sampler.hpp"
#include "gpu_test_support.hpp"
#include "kprof/kprof.hpp"
#include "kprof/metrics.hpp"
#include "kprof/stalls.hpp"
#include "stall_kernels.hpp"

namespace {

using kprof::detail::PcSampler;
using kprof::detail::PcSamples;
using kprof_test::StallKernel;

constexpr int kPeriodLog2 = 10;
constexpr std::string_view kPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

// The reason's short name ("long_scoreboard"), or "" for the _not_issued variants.
std::string short_reason(const std::string& name) {
  std::string s = name.starts_with(kPrefix) ? name.substr(kPrefix.size()) : name;
  return s.ends_with(kNotIssued) ? "" : s;
}

// Samples by short reason name over the PCs of the functions whose name holds `kernel`.
std::map<std::string, std::uint64_t> by_reason(const PcSampler& sampler, const PcSamples& s,
                                               const std::string& kernel) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& pc : s.pcs) {
    if (pc.function.find(kernel) == std::string::npos) continue;
    for (const auto& stall : pc.stalls) {
      const std::string reason = short_reason(sampler.reasons().at(stall.reason));
      if (!reason.empty()) out[reason] += stall.samples;
    }
  }
  return out;
}

std::string top_reason(const std::map<std::string, std::uint64_t>& reasons) {
  const auto it =
      std::max_element(reasons.begin(), reasons.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  return it == reasons.end() ? "" : it->first;
}

void print(const char* title, const PcSamples& s, const std::map<std::string, std::uint64_t>& r) {
  std::uint64_t sum = 0;
  for (const auto& [reason, n] : r) sum += n;
  std::printf("%s: %zu PCs, total %llu, dropped %llu, non-user %llu, buffer full %d\n", title,
              s.pcs.size(), static_cast<unsigned long long>(s.total_samples),
              static_cast<unsigned long long>(s.dropped_samples),
              static_cast<unsigned long long>(s.non_user_samples), s.hardware_buffer_full);
  for (const auto& [reason, n] : r)
    if (n * 100 >= sum) std::printf("  %-28s %6.1f%%\n", reason.c_str(), 100.0 * n / sum);
}

std::map<std::string, std::uint64_t> sample(StallKernel which, const char* title) {
  kprof_test::launch_stall(which);  // the buffers made and the module loaded before sampling
  PcSampler sampler(kPeriodLog2);
  sampler.start();
  kprof_test::launch_stall(which);
  const PcSamples s = sampler.stop();
  const auto reasons = by_reason(sampler, s, kprof_test::stall_kernel_name(which));
  print(title, s, reasons);
  EXPECT_GT(s.total_samples, 0u);
  return reasons;
}

// Keeps the cubins of the modules loaded from here on (the test kernels' module loads at the first
// launch of one of them), as a sampling profile does; for the process, so CTest runs each test
// in a process of its own.
class PcSampling : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { kprof::detail::watch_module_loads(); }
};

TEST_F(PcSampling, NamesTheDevicesStallReasons) {
  kprof_test::launch_stall(StallKernel::fma_chain);
  PcSampler sampler(kPeriodLog2);
  const auto& names = sampler.reasons();
  std::printf("%zu stall reasons:", names.size());
  for (const auto& n : names) std::printf(" %s", n.c_str());
  std::printf("\n");
  for (const char* expected : {"long_scoreboard", "barrier", "wait", "math_pipe_throttle"})
    EXPECT_NE(std::find(names.begin(), names.end(), std::string(kPrefix) + expected), names.end())
        << expected;
}

TEST_F(PcSampling, DependentLoadsWaitOnTheLongScoreboard) {
  EXPECT_EQ(top_reason(sample(StallKernel::chase, "chase")), "long_scoreboard");
}

TEST_F(PcSampling, WarpsWaitingForOneWarpWaitAtTheBarrier) {
  EXPECT_EQ(top_reason(sample(StallKernel::barrier, "barrier")), "barrier");
}

TEST_F(PcSampling, ADependentFmaChainWaitsOnFixedLatency) {
  const std::string top = top_reason(sample(StallKernel::fma_chain, "fma chain"));
  EXPECT_TRUE(top == "wait" || top == "math_pipe_throttle") << top;
}

TEST_F(PcSampling, SamplesOnlyTheWorkBetweenStartAndStop) {
  kprof_test::launch_stall(StallKernel::chase);
  kprof_test::launch_stall(StallKernel::barrier);
  PcSampler sampler(kPeriodLog2);
  kprof_test::launch_stall(StallKernel::chase);  // before start: finished before sampling
  sampler.start();
  kprof_test::launch_stall(StallKernel::barrier);
  const PcSamples s = sampler.stop();
  EXPECT_TRUE(by_reason(sampler, s, "stall_chase").empty());
  EXPECT_FALSE(by_reason(sampler, s, "stall_barrier").empty());
}

TEST_F(PcSampling, TheHottestPcOfTheChaseIsItsLoadsLine) {
  kprof_test::launch_stall(StallKernel::chase);
  PcSampler sampler(kPeriodLog2);
  sampler.start();
  kprof_test::launch_stall(StallKernel::chase);
  const PcSamples s = sampler.stop();
  const kprof::detail::SampledPc* hottest = nullptr;
  std::uint64_t most = 0;
  for (const auto& pc : s.pcs) {
    std::uint64_t n = 0;
    for (const auto& stall : pc.stalls)
      if (!short_reason(sampler.reasons().at(stall.reason)).empty()) n += stall.samples;
    if (pc.function.find("stall_chase") != std::string::npos && n > most) {
      most = n;
      hottest = &pc;
    }
  }
  ASSERT_NE(hottest, nullptr);
  const auto line = kprof::detail::ModuleCode::source_line(
      static_cast<kprof::detail::ModuleCode::Crc>(hottest->cubin_crc), hottest->function,
      hottest->pc_offset);
  std::printf("hottest PC %s+0x%llx: %s / %s:%u (%llu samples)\n", hottest->function.c_str(),
              static_cast<unsigned long long>(hottest->pc_offset), line.dir.c_str(),
              line.file.c_str(), line.line, static_cast<unsigned long long>(most));
  EXPECT_TRUE(line.file.ends_with("stall_kernels.cu")) << line.file;
  EXPECT_EQ(line.line, static_cast<std::uint32_t>(kprof_test::chase_load_line()));
}

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string word;
  while (status >> word)
    if (word == "VmRSS:") {
      long kib = 0;
      status >> kib;
      return kib;
    }
  return -1;
}

TEST_F(PcSampling, ManyWindowsOfOneSampler) {
  const long start = rss_kib();
  kprof_test::launch_stall(StallKernel::fma_chain);
  PcSampler sampler(kPeriodLog2);
  std::uint64_t pcs = 0;
  long first = 0;
  for (int i = 0; i < 100; ++i) {
    sampler.start();
    kprof_test::launch_stall(StallKernel::fma_chain);
    const PcSamples s = sampler.stop();
    EXPECT_FALSE(s.pcs.empty()) << "window " << i;
    pcs += s.pcs.size();
    if (i == 0) first = rss_kib();
  }
  const long last = rss_kib();
  std::printf(
      "100 windows: %llu PCs, RSS %ld KiB before, %ld after the first, %ld after the last\n",
      static_cast<unsigned long long>(pcs), start, first, last);
}

}  // namespace

namespace {

// Each region's share of its samples of `reason`.
double share(const kprof::Results& r, const std::string& annotation, const std::string& reason) {
  double count = 0, stalled = 0;
  for (const kprof::Row& row : r.rows()) {
    if (row.annotation != annotation) continue;
    if (row.metric == "smsp__pcsamp_sample_count") count = row.mean;
    if (row.metric == kprof::metrics::stall_metric(reason)) stalled = row.mean;
  }
  return count > 0 ? stalled / count : 0;
}

// Sampling enabled before a timed profile samples after it, and the profile still times its
// kernels: enabled after one, CUPTI 13.0.1 put every sample in "non-user" kernels and gave no
// PC, and with sampling enabled it refuses to trace concurrent kernels (docs/validation.md,
// 2026-12-07 and 12-08), which is why a profile enables it before it traces anything and then
// traces kernels one at a time.
TEST(SourceSet, ASamplerEnabledBeforeAProfileSamplesAfterIt) {
  kprof_test::launch_stall(StallKernel::chase);
  PcSampler sampler(kPeriodLog2);
  kprof::Options o = kprof_test::duration_options(kprof::CacheControl::all, 2);
  const kprof::Results timed = kprof::profile(o, kprof::Sweep(), [](const kprof::Config&) {
    kprof::Annotation a("chase");
    kprof_test::launch_stall(StallKernel::chase);
  });
  ASSERT_EQ(timed.rows().size(), 1u);
  std::printf("the chase timed with sampling enabled: %.1f us\n", timed.rows()[0].mean / 1e3);
  EXPECT_GT(timed.rows()[0].mean, 0);
  sampler.start();
  kprof_test::launch_stall(StallKernel::chase);
  const PcSamples s = sampler.stop();
  const auto reasons = by_reason(sampler, s, kprof_test::stall_kernel_name(StallKernel::chase));
  print("enabled before the profile", s, reasons);
  EXPECT_EQ(top_reason(reasons), "long_scoreboard");
}

// set:source through kprof::profile: a pass of its own samples each region's kernels.
TEST(SourceSet, AProfileGivesEachRegionItsStallReasons) {
  kprof::Options o = kprof_test::duration_options(kprof::CacheControl::all, 2);
  o.metrics = {"set:source"};
  o.verbosity = kprof::Verbosity::info;  // the pass's warnings and what it sampled
  const kprof::Results r = kprof::profile(o, kprof::Sweep(), [](const kprof::Config&) {
    {
      kprof::Annotation a("chase");
      kprof_test::launch_stall(StallKernel::chase);
    }
    kprof::Annotation b("barrier");
    kprof_test::launch_stall(StallKernel::barrier);
  });
  for (const kprof::Row& row : r.rows())
    if (row.mean > 0)
      std::printf("  %-8s %-58s %12.1f %s\n", row.annotation.c_str(), row.metric.c_str(), row.mean,
                  row.unit.c_str());
  std::printf("%s", kprof::stalls_text(kprof::stall_shares(r)).c_str());
  // A recording for the tests without a GPU (tests/data), where the run asks for one.
  if (const char* dir = std::getenv("KPROF_TEST_RECORDINGS"); dir != nullptr && *dir != '\0')
    r.write_json(std::string(dir) + "/source-set.json");
  EXPECT_GT(share(r, "chase", "long_scoreboard"), 0.9);
  EXPECT_GT(share(r, "barrier", "barrier"), 0.6);
  // The chase's most sampled instruction is its load, on the load's line (-lineinfo).
  std::map<std::int64_t, double> chase;
  std::map<std::int64_t, const kprof::SourceSample*> at;
  for (const kprof::SourceSample& x : r.source()) {
    if (x.annotation != "chase") continue;
    chase[x.pc_offset] += x.samples;
    at[x.pc_offset] = &x;
  }
  ASSERT_FALSE(chase.empty());
  const auto hottest = std::max_element(chase.begin(), chase.end(),
                                        [](auto& a, auto& b) { return a.second < b.second; });
  const kprof::SourceSample& top = *at[hottest->first];
  std::printf("chase: %zu instructions sampled; the hottest at 0x%llx, %s, %s:%d, %.0f samples\n",
              chase.size(), static_cast<unsigned long long>(top.pc_offset), top.sass.c_str(),
              top.file.c_str(), top.line, hottest->second);
  EXPECT_TRUE(top.file.ends_with("stall_kernels.cu")) << top.file;
  EXPECT_EQ(top.line, kprof_test::chase_load_line());
}

}  // namespace
