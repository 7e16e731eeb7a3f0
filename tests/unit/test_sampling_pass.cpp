// set:source's sampled call without a GPU: a scripted warp sampler whose samples the benchmark
// "takes"; each region gets the samples taken while it was open (nested regions are taken as
// set:flop's counts are: core/measure/region_pass.hpp, tests/unit/test_flop_pass.cpp), as
// records of the sampled metrics, and the period suits the shortest region.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "conditions_support.hpp"
#include "core/measure/engine.hpp"
#include "core/measure/sampling_pass.hpp"
#include "kprof/annotate.hpp"
#include "kprof/metrics.hpp"
#include "scripted_backend.hpp"

namespace {

using kprof::Annotation;
using kprof::Sweep;
using kprof::Value;
using kprof::detail::SampleWindow;

class ScriptedSampler : public kprof::detail::WarpSampler {
 public:
  void start() override { ++starts; }
  SampleWindow take() override { return std::exchange(pending_, {}); }
  void discard() override { pending_ = {}; }
  void stop() noexcept override { ++stops; }
  // Made-up places: the opcode and line tell the offset and the cubin.
  kprof::detail::InstructionPlace place(std::uint32_t crc, const std::string&,
                                        std::uint64_t pc_offset) override {
    ++placed;
    return {"OP" + std::to_string(pc_offset), "k" + std::to_string(crc) + ".cu",
            static_cast<int>(pc_offset / 16)};
  }
  // `function` was sampled `n` times stalled on `reason` (at `pc_offset` of cubin 7).
  void sampled(const std::string& function, const std::string& reason, std::uint64_t n,
               std::uint64_t dropped = 0, std::uint64_t pc_offset = 0x10) {
    pending_.stalls.push_back({function, pc_offset, 7, reason, n});
    pending_.total_samples += n + dropped;
    pending_.dropped_samples += dropped;
  }
  // `n` samples the GPU took that CUPTI placed in no kernel it knows.
  void unplaced(std::uint64_t n) { pending_.total_samples += n; }
  int starts = 0, stops = 0, placed = 0;

 private:
  SampleWindow pending_;
};

class Forwarding : public kprof::detail::WarpSampler {
 public:
  explicit Forwarding(ScriptedSampler& to) : to_(to) {}
  void start() override { to_.start(); }
  SampleWindow take() override { return to_.take(); }
  void discard() override { to_.discard(); }
  void stop() noexcept override { to_.stop(); }
  kprof::detail::InstructionPlace place(std::uint32_t crc, const std::string& function,
                                        std::uint64_t pc_offset) override {
    return to_.place(crc, function, pc_offset);
  }

 private:
  ScriptedSampler& to_;
};

const std::string kCount = "smsp__pcsamp_sample_count";
const std::string kLong = kprof::metrics::stall_metric("long_scoreboard");
const std::string kLongNotIssued = kprof::metrics::stall_metric("long_scoreboard_not_issued");
const std::string kBarrier = kprof::metrics::stall_metric("barrier");

struct Sampled {
  kprof::Results results;
  std::vector<kprof::detail::RegionSpan> spans;  // the regions' span given to the factory
  std::vector<std::string> warnings;
};

// A profile of `runs` runs of `body`, sampling into `sampler`, of the duration and `metrics`.
Sampled profile(ScriptedSampler& sampler, kprof::testing::ScriptedBackend& gpu, int runs,
                const std::vector<std::string>& metrics, const Sweep& sweep,
                const std::function<void(std::size_t)>& body) {
  Sampled out;
  kprof::detail::SweepServices services;
  services.warp_sampler = [&](const kprof::detail::RegionSpan& span) {
    out.spans.push_back(span);
    return std::make_unique<Forwarding>(sampler);
  };
  kprof::Options o = kprof::testing::quiet(runs);
  o.verbosity = kprof::Verbosity::info;  // the pass's warnings are said at info
  o.metrics = {"gpu__time_duration.sum"};
  o.metrics.insert(o.metrics.end(), metrics.begin(), metrics.end());
  const kprof::testing::conditions::LogCapture said;
  out.results =
      kprof::detail::run_sweep(gpu, o, sweep, [&](std::size_t c, int) { body(c); }, {}, services);
  out.warnings = said.lines;
  return out;
}

std::map<std::pair<std::string, std::string>, double> means(const kprof::Results& r,
                                                            std::size_t config = 0) {
  std::map<std::pair<std::string, std::string>, double> out;
  for (const kprof::Row& row : r.rows())
    if (row.config == config) out[{row.annotation, row.metric}] = row.mean;
  return out;
}

TEST(SamplingPass, APeriodGivesTheShortestRegionItsSamples) {
  using kprof::detail::sampling_period_log2;
  // 10 us on 132 SMs at 1.98 GHz: 2.6 million SM cycles, over 20,000 samples: 2^7.
  EXPECT_EQ(sampling_period_log2(10e3, 10e3, 132, 1.98e6), 7);
  EXPECT_EQ(sampling_period_log2(1e6, 1e6, 132, 1.98e6), 13);
  EXPECT_EQ(sampling_period_log2(0, 0, 132, 1.98e6), 10);        // unknown: Proton's period
  EXPECT_EQ(sampling_period_log2(10, 10, 132, 1.98e6), 5);       // CUPTI's shortest
  EXPECT_EQ(sampling_period_log2(1e15, 1e15, 132, 1.98e6), 31);  // and longest
}

TEST(SamplingPass, ThePeriodKeepsTheLongestRegionsSamplesWithinTheBuffer) {
  using kprof::detail::sampling_period_log2;
  // 1 s beside 10 us: 2.6e11 SM cycles at most 2e7 samples: 2^14, not the shortest's 2^7.
  EXPECT_EQ(sampling_period_log2(10e3, 1e9, 132, 1.98e6), 14);
  EXPECT_EQ(sampling_period_log2(10e3, 1e6, 132, 1.98e6), 7);  // within: the shortest's
}

TEST(SamplingPass, EachRegionGetsItsSamplesAsRecordsOfTheSampledMetrics) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedSampler sampler;
  const Sampled s = profile(
      sampler, gpu, 2, {kCount, kLong, kLongNotIssued, kBarrier},
      Sweep().axis("n", {Value(std::int64_t{1}), Value(std::int64_t{2})}), [&](std::size_t c) {
        sampler.sampled("_Z4kernv", "barrier", 7);  // outside every region: dropped
        {
          Annotation a("a");
          gpu.launch("kern()", 1000);
          sampler.sampled("_Z4kernv", "long_scoreboard", 90 * (c + 1));
          sampler.sampled("_Z4kernv", "long_scoreboard_not_issued", 80);
          sampler.sampled("_Z4kernv", "selected", 10);
        }
        Annotation b("b");
        gpu.launch("kern()", 500);
        sampler.sampled("_Z4kernv", "barrier", 5);
      });
  EXPECT_EQ(sampler.starts, 1);
  EXPECT_EQ(sampler.stops, 1);
  ASSERT_EQ(s.spans.size(), 1u);
  EXPECT_DOUBLE_EQ(s.spans[0].shortest_ns, 500);  // region b
  EXPECT_DOUBLE_EQ(s.spans[0].longest_ns, 1000);  // region a
  auto m = means(s.results);
  EXPECT_DOUBLE_EQ((m[{"a", kLong}]), 90);
  EXPECT_DOUBLE_EQ((m[{"a", kLongNotIssued}]), 80);
  EXPECT_DOUBLE_EQ((m[{"a", kBarrier}]), 0);
  // Every sample has one plain reason: the count leaves the _not_issued variants out.
  EXPECT_DOUBLE_EQ((m[{"a", kCount}]), 100);
  EXPECT_DOUBLE_EQ((m[{"b", kBarrier}]), 5);
  EXPECT_DOUBLE_EQ((m[{"b", kLong}]), 0);
  EXPECT_DOUBLE_EQ((m[{"b", kCount}]), 5);
  EXPECT_DOUBLE_EQ((means(s.results, 1)[{"a", kLong}]), 180);
  for (const kprof::Record& r : s.results.records())
    if (r.metric == kLong) EXPECT_EQ(r.unit, "sample");
}

// The period suits the shortest region: a kernel of another region may get no sample at all.
TEST(SamplingPass, AKernelWithoutSamplesInASampledRegionHasNone) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedSampler sampler;
  const Sampled s = profile(sampler, gpu, 1, {kCount, kLong}, Sweep(), [&](std::size_t) {
    {
      Annotation a("busy");
      gpu.launch("kern()", 1000);
      sampler.sampled("_Z4kernv", "long_scoreboard", 50);
    }
    Annotation b("quiet");
    gpu.launch("tiny()", 10);
  });
  const auto m = means(s.results);
  EXPECT_DOUBLE_EQ(m.at({"busy", kLong}), 50);
  EXPECT_DOUBLE_EQ(m.at({"quiet", kLong}), 0);
  EXPECT_DOUBLE_EQ(m.at({"quiet", kCount}), 0);
}

TEST(SamplingPass, DroppedSamplesAreSaid) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedSampler sampler;
  kprof::testing::ScriptedBackend* g = &gpu;
  const Sampled s = profile(sampler, gpu, 1, {kCount}, Sweep(), [&](std::size_t) {
    Annotation a("k");
    g->launch("kern()", 1000);
    sampler.sampled("_Z4kernv", "wait", 100, 25);
  });
  bool said = false;
  for (const std::string& line : s.warnings)
    said = said || line.find("dropped 25 of 125 warp samples") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_DOUBLE_EQ((means(s.results)[{"k", kCount}]), 100);
}

TEST(SamplingPass, ABenchmarkThatFailsInItsSampledCallCostsTheSamplesNotTheProfile) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedSampler sampler;
  int calls = 0;
  const Sampled s = profile(sampler, gpu, 1, {kLong}, Sweep(), [&](std::size_t) {
    if (++calls == 3) throw std::runtime_error("a consumed iterator");  // the sampled call
    Annotation a("k");
    gpu.launch("kern()", 1000);
  });
  EXPECT_EQ(sampler.stops, 1);
  const auto m = means(s.results);
  ASSERT_TRUE(m.contains({"k", kLong}));
  EXPECT_TRUE(std::isnan(m.at({"k", kLong})));
  EXPECT_DOUBLE_EQ(m.at({"k", "gpu__time_duration.sum"}), 1000);
}

// Each region's sampled instructions: a line per reason asked for, placed once per instruction;
// a nested region's instructions are its parent's too, as its samples are.
TEST(SamplingPass, EachRegionKeepsItsSampledInstructionsAndTheirPlaces) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedSampler sampler;
  const Sampled s = profile(sampler, gpu, 1, {kCount, kLong, kBarrier}, Sweep(), [&](std::size_t) {
    Annotation outer("outer");  // its one kernel is inner's
    sampler.sampled("_Z4kernv", "long_scoreboard", 30, 0, 0x40);
    sampler.sampled("_Z4kernv", "barrier", 5, 0, 0x40);
    sampler.sampled("_Z4kernv", "wait", 9, 0, 0x50);  // a reason not asked for
    Annotation inner("inner");
    gpu.launch("kern()", 500);
    sampler.sampled("_Z4kernv", "long_scoreboard", 12, 0, 0x80);
  });
  std::map<std::pair<std::string, std::int64_t>, std::map<std::string, double>> got;
  for (const kprof::SourceSample& x : s.results.source()) {
    got[{x.annotation, x.pc_offset}][x.reason] = x.samples;
    EXPECT_EQ(x.kernel, "kern()");
    EXPECT_EQ(x.sass, "OP" + std::to_string(x.pc_offset));
    EXPECT_EQ(x.file, "k7.cu");
    EXPECT_EQ(x.cubin, 7u);
    EXPECT_EQ(x.line, x.pc_offset / 16);
  }
  using Reasons = std::map<std::string, double>;
  EXPECT_EQ((got[{"outer", 0x40}]), (Reasons{{"barrier", 5}, {"long_scoreboard", 30}}));
  EXPECT_EQ((got[{"outer", 0x80}]), (Reasons{{"long_scoreboard", 12}}));
  EXPECT_EQ((got[{"outer/inner", 0x80}]), (Reasons{{"long_scoreboard", 12}}));
  EXPECT_FALSE(got.contains({"outer", 0x50}));  // only "wait", which was not asked for
  EXPECT_FALSE(got.contains({"outer/inner", 0x40}));
  EXPECT_EQ(sampler.placed, 3);  // 0x40, 0x50, 0x80: once each
  // The counts by function are as before.
  EXPECT_DOUBLE_EQ((means(s.results)[{"outer", kLong}]), 42);
  EXPECT_DOUBLE_EQ((means(s.results)[{"outer", kCount}]), 56);
  // The table goes with the results through JSON.
  const kprof::Results back = kprof::Results::from_json(s.results.to_json());
  ASSERT_EQ(back.source().size(), s.results.source().size());
  EXPECT_EQ(back.source().front().sass, s.results.source().front().sass);
  EXPECT_EQ(back.source().back().line, s.results.source().back().line);
}

// CUPTI counted samples but placed none in a kernel it knows: NaN and a warning, not zeros that
// would read as a region that never waited.
TEST(SamplingPass, SamplesOfNoKnownKernelAreNaNAndSaid) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedSampler sampler;
  const Sampled s = profile(sampler, gpu, 1, {kCount, kLong}, Sweep(), [&](std::size_t) {
    Annotation a("k");
    gpu.launch("kern()", 1000);
    sampler.unplaced(500);
  });
  const auto m = means(s.results);
  EXPECT_TRUE(std::isnan(m.at({"k", kLong})));
  EXPECT_TRUE(s.results.source().empty());
  bool said = false;
  for (const std::string& line : s.warnings)
    said = said || line.find("attributed none to a kernel") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(SamplingPass, TheSetHoldsTheDurationTheCountAndEachReason) {
  const auto& set = kprof::metrics::find_set("set:source");
  EXPECT_EQ(set.metrics.front(), "gpu__time_duration.sum");
  EXPECT_EQ(set.metrics[1], kCount);
  EXPECT_NE(std::find(set.metrics.begin(), set.metrics.end(), kLong), set.metrics.end());
  for (std::size_t i = 1; i < set.metrics.size(); ++i)
    EXPECT_TRUE(kprof::metrics::is_sampled_metric(set.metrics[i])) << set.metrics[i];
  // No pass of the range profiler: the counters are none of them.
  EXPECT_TRUE(kprof::metrics::counter_metrics({kCount, kLong, kLongNotIssued}).empty());
  // The _not_issued variants are metrics of their own, outside the set; a misspelt one is none.
  EXPECT_EQ(std::find(set.metrics.begin(), set.metrics.end(), kLongNotIssued), set.metrics.end());
  EXPECT_TRUE(kprof::metrics::is_sampled_metric(kLongNotIssued));
  EXPECT_FALSE(
      kprof::metrics::is_sampled_metric("smsp__pcsamp_warps_issue_stalled_long_scorebaord"));
  EXPECT_EQ(
      kprof::metrics::counter_metrics({"smsp__pcsamp_warps_issue_stalled_long_scorebaord"}).size(),
      1u);  // left to the catalog's check, which names the closest
}

}  // namespace
