// set:flop's counted calls without a GPU: a scripted instruction counter whose counts the
// benchmark "runs"; each region must get what ran while it was open, nested regions included in
// the regions around them, and nothing that ran outside every region.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "conditions_support.hpp"
#include "core/measure/engine.hpp"
#include "core/measure/flop_pass.hpp"
#include "core/measure/region_tracker.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "scripted_backend.hpp"

namespace {

using kprof::Annotation;
using kprof::Sweep;
using kprof::Value;
using kprof::detail::FlopClass;
using kprof::detail::FlopCounts;
using kprof::detail::RegionFlop;

class ScriptedCounter : public kprof::detail::InstructionCounter {
 public:
  void enable() override { ++enables; }
  std::map<std::string, FlopCounts> take() override {
    if (++takes == fail_at_take) throw kprof::MeasurementError("no cubin of CRC 0x1234 was kept");
    if (pending_.contains(unkept)) throw kprof::MeasurementError(unkept + "'s code was not kept");
    return std::exchange(pending_, {});
  }
  void discard() override {
    ++discards;
    pending_.clear();
  }
  void disable() noexcept override { ++disables; }
  // A kernel `function` ran `n` instructions of class `c`.
  void ran(const std::string& function, FlopClass c, double n) {
    pending_.try_emplace(function, FlopCounts{}).first->second[static_cast<std::size_t>(c)] += n;
  }
  int enables = 0, disables = 0, takes = 0, discards = 0;
  int fail_at_take = -1;          // the take that throws
  std::string unkept = "unkept";  // a function whose module's code was not kept: take() throws

 private:
  std::map<std::string, FlopCounts> pending_;
};

// The tracker in a profile for the test's duration, as the engine holds it around the pass.
struct TrackerProfile {
  TrackerProfile() { kprof::detail::RegionTracker::instance().begin_profile(); }
  ~TrackerProfile() { kprof::detail::RegionTracker::instance().end_profile(); }
};

Sweep two_configs() { return Sweep().axis("n", {Value(std::int64_t{1}), Value(std::int64_t{2})}); }

double of(const std::vector<RegionFlop>& out, std::size_t config, const std::string& path,
          const std::string& function, FlopClass c) {
  for (const RegionFlop& r : out)
    if (r.config == config && r.annotation == path) {
      const auto f = r.functions.find(function);
      return f == r.functions.end() ? 0.0 : f->second[static_cast<std::size_t>(c)];
    }
  ADD_FAILURE() << "no region " << path << " in config " << config;
  return -1;
}

TEST(FlopPass, EachRegionGetsWhatRanWhileItWasOpenNestedRegionsIncluded) {
  ScriptedCounter counter;
  const TrackerProfile profile;
  std::vector<std::size_t> called;
  const auto out = kprof::detail::count_flop(
      counter, two_configs(),
      [&](std::size_t c, int) {
        called.push_back(c);
        counter.ran("before", FlopClass::ffma, 1);  // outside every region: dropped
        {
          Annotation outer("outer");
          counter.ran("k1", FlopClass::ffma, 100.0 * (c + 1));
          {
            Annotation inner("inner");
            counter.ran("k2", FlopClass::dfma, 10);
          }
          counter.ran("k1", FlopClass::fadd, 5);
        }
        counter.ran("after", FlopClass::fmul, 1);  // dropped
      },
      nullptr);
  EXPECT_EQ(called, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(counter.enables, 1);
  EXPECT_EQ(counter.disables, 1);
  ASSERT_EQ(out.size(), 4u);  // outer and outer/inner, per config
  EXPECT_DOUBLE_EQ(of(out, 0, "outer", "k1", FlopClass::ffma), 100);
  EXPECT_DOUBLE_EQ(of(out, 1, "outer", "k1", FlopClass::ffma), 200);
  EXPECT_DOUBLE_EQ(of(out, 0, "outer", "k1", FlopClass::fadd), 5);
  EXPECT_DOUBLE_EQ(of(out, 0, "outer", "k2", FlopClass::dfma), 10);  // the inner region's too
  EXPECT_DOUBLE_EQ(of(out, 0, "outer/inner", "k2", FlopClass::dfma), 10);
  EXPECT_DOUBLE_EQ(of(out, 0, "outer/inner", "k1", FlopClass::ffma), 0);
  for (const RegionFlop& r : out) {
    EXPECT_EQ(r.functions.count("before"), 0u);
    EXPECT_EQ(r.functions.count("after"), 0u);
  }
}

TEST(FlopPass, ACallThatRaisesNamesItsConfigAndTheCounterStops) {
  ScriptedCounter counter;
  const TrackerProfile profile;
  try {
    kprof::detail::count_flop(
        counter, two_configs(),
        [&](std::size_t c, int) {
          Annotation a("work");
          if (c == 1) throw std::runtime_error("out of memory");
        },
        nullptr);
    FAIL() << "no error";
  } catch (const kprof::UserFunctionError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("config 2/2 (n=2)"), std::string::npos) << what;
    EXPECT_NE(what.find("set:flop"), std::string::npos) << what;
    EXPECT_NE(what.find("out of memory"), std::string::npos) << what;
  }
  EXPECT_EQ(counter.disables, 1);
  // The tracker's hooks are handed back: an annotation after the pass takes no count.
  const int takes = counter.takes, discards = counter.discards;
  kprof::detail::RegionTracker::instance().begin_run(0, 0);
  { Annotation after("after"); }
  (void)kprof::detail::RegionTracker::instance().end_run();
  EXPECT_EQ(counter.takes, takes);
  EXPECT_EQ(counter.discards, discards);
}

// What runs outside every region is dropped unclassed: a kernel whose module's code was not kept
// (loaded before kprof kept modules, say) fails the pass only when a region ran it.
TEST(FlopPass, AKernelWithoutCodeFailsThePassOnlyInsideARegion) {
  ScriptedCounter counter;
  const TrackerProfile profile;
  bool inside = false;
  const auto body = [&](std::size_t, int) {
    counter.ran("unkept", FlopClass::ffma, 1);  // before the region
    {
      Annotation a("work");
      counter.ran("k", FlopClass::ffma, 2);
      if (inside) counter.ran("unkept", FlopClass::ffma, 1);
    }
    counter.ran("unkept", FlopClass::ffma, 1);  // after it
  };
  const auto out = kprof::detail::count_flop(counter, Sweep(), body, nullptr);
  EXPECT_DOUBLE_EQ(of(out, 0, "work", "k", FlopClass::ffma), 2);
  inside = true;
  EXPECT_THROW(kprof::detail::count_flop(counter, Sweep(), body, nullptr), kprof::MeasurementError);
}

// A take that fails as a region closes (in an annotation's destructor, which swallows it) is
// raised once the call returns, not lost with the counts it would have given.
TEST(FlopPass, ACountThatFailsAtARegionsCloseFailsThePass) {
  ScriptedCounter counter;
  counter.fail_at_take = 1;  // as "work" closes (before it opened, nothing was open: discarded)
  const TrackerProfile profile;
  EXPECT_THROW(kprof::detail::count_flop(
                   counter, Sweep(),
                   [&](std::size_t, int) {
                     Annotation a("work");
                     counter.ran("k", FlopClass::ffma, 1);
                   },
                   nullptr),
               kprof::MeasurementError);
  EXPECT_EQ(counter.disables, 1);
}

TEST(FlopPass, PollIsCalledAfterEachCall) {
  ScriptedCounter counter;
  const TrackerProfile profile;
  int polls = 0;
  kprof::detail::count_flop(
      counter, two_configs(), [&](std::size_t, int) { Annotation a("work"); }, [&] { ++polls; });
  EXPECT_EQ(polls, 2);
}

// The profile's counter, handed to the engine, counts into the test's.
class Forwarding : public kprof::detail::InstructionCounter {
 public:
  explicit Forwarding(ScriptedCounter& to) : to_(to) {}
  void enable() override { to_.enable(); }
  std::map<std::string, FlopCounts> take() override { return to_.take(); }
  void discard() override { to_.discard(); }
  void disable() noexcept override { to_.disable(); }

 private:
  ScriptedCounter& to_;
};

const std::string kFfma(kprof::detail::flop_metric(FlopClass::ffma));

// The engine's services with an instruction counter that forwards to `counter`.
kprof::detail::SweepServices counting_into(ScriptedCounter& counter) {
  kprof::detail::SweepServices services;
  services.instruction_counter = [&counter] { return std::make_unique<Forwarding>(counter); };
  return services;
}

// Quiet options of `runs` runs measuring the duration and one of set:flop's classes.
kprof::Options counting_options(int runs) {
  kprof::Options o = kprof::testing::quiet(runs);
  o.metrics = {"gpu__time_duration.sum", kFfma};
  return o;
}

TEST(FlopPass, AProfileCountsOnceAfterItsCallsAndGivesEveryRunOfAKernelItsCounts) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedCounter counter;
  const kprof::detail::SweepServices services = counting_into(counter);
  kprof::Options o = counting_options(2);
  o.verbosity = kprof::Verbosity::info;
  const kprof::testing::conditions::LogCapture said;
  std::vector<std::pair<std::size_t, int>> calls;  // (config, releases so far)
  const kprof::Results r = kprof::detail::run_sweep(
      gpu, o, two_configs(),
      [&](std::size_t c, int) {
        calls.emplace_back(c, gpu.releases);
        Annotation a("k");
        gpu.launch("kern", 1000);
        counter.ran("kern", FlopClass::ffma, 50.0 * (c + 1));
      },
      {}, services);
  // Two runs and the unprofiled call of each config, then the counted calls, after the
  // backend gave back what it kept; the pass is announced, since the progress display is over.
  ASSERT_EQ(calls.size(), 8u);
  EXPECT_EQ(std::count_if(said.lines.begin(), said.lines.end(),
                          [](const std::string& line) {
                            return line.find(
                                       "set:flop: counting FP instructions in one more "
                                       "call of each of the 2 config(s)") != std::string::npos;
                          }),
            1);
  EXPECT_EQ(calls[6], std::make_pair(std::size_t{0}, 1));
  EXPECT_EQ(calls[7], std::make_pair(std::size_t{1}, 1));
  EXPECT_EQ(counter.enables, 1);
  int rows = 0;
  for (const kprof::Row& row : r.rows()) {
    if (row.metric != kFfma) continue;
    ++rows;
    EXPECT_DOUBLE_EQ(row.mean, 50.0 * (row.config + 1));
    EXPECT_EQ(row.num_runs, 2);
  }
  EXPECT_EQ(rows, 2);
}

// In range replay each region is measured whole: an outer range that launched nothing itself
// gets its nested regions' counts, as its measured values hold their work.
TEST(FlopPass, InRangeReplayAnOuterRegionGetsItsNestedRegionsCounts) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedCounter counter;
  const kprof::detail::SweepServices services = counting_into(counter);
  kprof::Options o = counting_options(1);
  o.replay_mode = kprof::ReplayMode::range;
  const kprof::Results r = kprof::detail::run_sweep(
      gpu, o, Sweep(),
      [&](std::size_t, int) {
        Annotation outer("outer");
        gpu.measure_region("", 2000);
        Annotation inner("inner");
        gpu.measure_region("kern", 1000);
        counter.ran("kern", FlopClass::ffma, 10);
      },
      {}, services);
  std::map<std::string, double> ffma;
  for (const kprof::Row& row : r.rows())
    if (row.metric == kFfma) ffma[row.annotation] = row.mean;
  EXPECT_DOUBLE_EQ(ffma["outer"], 10);
  EXPECT_DOUBLE_EQ(ffma["outer/inner"], 10);
}

TEST(FlopPass, ABenchmarkThatFailsInItsCountedCallCostsTheCountsNotTheProfile) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedCounter counter;
  const kprof::detail::SweepServices services = counting_into(counter);
  kprof::Options o = counting_options(1);
  int calls = 0;
  const kprof::Results r = kprof::detail::run_sweep(
      gpu, o, Sweep(),
      [&](std::size_t, int) {
        if (++calls == 3) throw std::runtime_error("a consumed iterator");  // the counted call
        Annotation a("k");
        gpu.launch("kern", 1000);
      },
      {}, services);
  int rows = 0;
  for (const kprof::Row& row : r.rows())
    if (row.metric == kFfma) {
      ++rows;
      EXPECT_TRUE(std::isnan(row.mean));
    }
  EXPECT_EQ(rows, 1);
  EXPECT_TRUE(std::isfinite(r.session().overhead_seconds_per_run));  // the disclosure stands
}

TEST(FlopPass, NoCountedCallWithoutItsMetricsOrACounter) {
  kprof::testing::ScriptedBackend gpu;
  ScriptedCounter counter;
  const kprof::detail::SweepServices services = counting_into(counter);
  int calls = 0;
  const auto body = [&](std::size_t, int) {
    ++calls;
    Annotation a("k");
    gpu.launch("kern", 1000);
  };
  kprof::detail::run_sweep(gpu, kprof::testing::quiet(2), two_configs(), body, {}, services);
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(counter.enables, 0);
  kprof::Options o = counting_options(2);
  calls = 0;
  kprof::detail::run_sweep(gpu, o, two_configs(), body, {}, kprof::detail::SweepServices{});
  EXPECT_EQ(calls, 6);
}

}  // namespace
