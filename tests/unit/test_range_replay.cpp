// The engine's range replay without a GPU: a scripted backend that asks for user replay, as
// the range profiler does with replay_mode="range". The engine must run every (config, run)
// once per pass, pass-major, split the sweep into sessions the backend can hold, check that
// each pass repeats the first, and keep a region's values to itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "core/measure/engine.hpp"
#include "core/measure/pass_loop.hpp"
#include "core/measure/region_tracker.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "scripted_backend.hpp"

using namespace kprof;

namespace {

// Measures each region opened in a session's first pass as one whole-region value: the
// number of its opening in the session (a range's counters, as the range profiler decodes
// them after the last pass).
class ScriptedReplayBackend : public detail::Backend, private detail::PassSessions {
 public:
  ScriptedReplayBackend(int passes, std::size_t capacity) : passes_(passes), capacity_(capacity) {}

  SessionInfo describe() override {
    SessionInfo s;
    s.backend = "scripted-replay";
    return s;
  }
  void start(const Options&) override {
    detail::RegionTracker::instance().set_range_hooks(
        {[this](detail::RegionId id, const std::string&, std::size_t depth) {
           if (pass_ == 0) opened_.push_back(id);
           depths.push_back(static_cast<int>(depth));
         },
         nullptr});
  }
  // The loop of range and application replay.
  void measure(detail::SweepRuns& runs) override {
    detail::UnmeasuredCalls calls(runs, [this](std::size_t c, std::size_t regions) {
      return unmeasured_call_done(c, regions);
    });
    detail::run_passes(runs, *this, calls);
  }
  std::vector<detail::Measurement> salvage() override { return decode(); }
  void stop() noexcept override {}

  std::vector<int> session_depths;         // one per session
  std::vector<int> depths;                 // of every region opened in a pass
  std::vector<std::size_t> fitted;         // fit_run's arguments
  std::vector<std::size_t> session_sizes;  // regions of each collected session
  bool grows = false;
  std::size_t ranges_per_region = 1;
  std::size_t refused_config = static_cast<std::size_t>(-1);  // its unmeasured call is refused

 private:
  std::vector<detail::Measurement> decode() override {
    std::vector<detail::Measurement> out;
    for (std::size_t i = 0; i < opened_.size(); ++i) {
      detail::Measurement m;
      m.region = opened_[i];
      m.kernel = "k";
      m.values = {{"bytes", static_cast<double>(i + 1), "B"}};
      m.whole_region = true;
      out.push_back(m);
    }
    session_sizes.push_back(opened_.size());
    opened_.clear();
    return out;
  }
  std::size_t session_capacity() const override { return capacity_; }
  void begin_session(int depth) override {
    session_depths.push_back(depth);
    pass_ = -1;
  }
  void begin_pass() override { ++pass_; }
  std::size_t unmeasured_call_done(std::size_t config, std::size_t regions) {
    if (config == refused_config) throw MeasurementError("config cannot be measured");
    fit_run(regions * ranges_per_region);
    return regions * ranges_per_region;
  }
  // Application replay takes a range per kernel rather than per region.
  std::size_t run_done(std::size_t regions) override {
    fit_run(regions * ranges_per_region);
    return regions * ranges_per_region;
  }
  // With `grows`, as the range profiler's backend does: room for four runs of the widest seen.
  void fit_run(std::size_t regions) {
    fitted.push_back(regions);
    if (grows) capacity_ = std::max(capacity_, 4 * regions);
  }
  int passes_per_session(int) const override { return passes_; }
  bool end_pass() override { return pass_ + 1 == passes_; }

  int passes_;
  std::size_t capacity_;
  int pass_ = -1;
  std::vector<detail::RegionId> opened_;
};

Options quiet(int runs) {
  Options o;
  o.runs = runs;
  o.verbosity = Verbosity::silent;
  o.thermal_mode = ThermalMode::off;
  o.replay_mode = ReplayMode::range;
  o.metrics = {"bytes"};
  return o;
}

Sweep two_configs() { return Sweep().axis("n", {Value(std::int64_t{1}), Value(std::int64_t{2})}); }

TEST(RangeReplay, EveryRunRepeatsOncePerPassPassMajor) {
  ScriptedReplayBackend gpu(/*passes=*/3, /*capacity=*/100);
  std::vector<std::tuple<std::size_t, int>> calls;
  Results r = detail::run_sweep(gpu, quiet(2), two_configs(), [&](std::size_t c, int run) {
    calls.emplace_back(c, run);
    Annotation a("work");
  });
  // One unmeasured call per config finds its width and depth, then 3 passes over the 4 runs.
  const std::vector<std::tuple<std::size_t, int>> pass = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  std::vector<std::tuple<std::size_t, int>> expected = {{0, 0}, {1, 0}};
  for (int p = 0; p < 3; ++p) expected.insert(expected.end(), pass.begin(), pass.end());
  expected.insert(expected.end(), {{0, -1}, {1, -1}});  // the unprofiled calls, after the profile
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(gpu.session_depths, std::vector<int>{1});
  ASSERT_EQ(r.records().size(), 4u);  // one record per run, from the first pass
  EXPECT_EQ(r.config_info().size(), 2u);
  EXPECT_EQ(r.run_info().size(), 4u);
}

TEST(RangeReplay, TheRunObserverHearsOfMeasuredRunsOnly) {
  ScriptedReplayBackend gpu(/*passes=*/3, /*capacity=*/100);
  std::vector<std::tuple<std::size_t, int>> observed;
  int calls = 0;
  detail::SweepHooks hooks;
  hooks.run_end = [&](std::size_t c, int run) { observed.emplace_back(c, run); };
  detail::run_sweep(
      gpu, quiet(2), two_configs(),
      [&](std::size_t, int) {
        ++calls;
        Annotation a("work");
      },
      hooks);
  // The unmeasured calls, three passes over four runs, the unprofiled calls after the profile.
  EXPECT_EQ(calls, 2 + 3 * 4 + 2);
  const std::vector<std::tuple<std::size_t, int>> runs = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  EXPECT_EQ(observed, runs);
}

// A profile started inside a running one is refused, and leaves the running one's hooks alone.
TEST(RangeReplay, ANestedProfileLeavesTheRunningOnesObserverInPlace) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/100);
  std::vector<std::tuple<std::size_t, int>> observed;
  int nested_runs = 0;
  detail::SweepHooks hooks;
  hooks.run_end = [&](std::size_t c, int run) { observed.emplace_back(c, run); };
  detail::SweepHooks nested_hooks;
  nested_hooks.run_end = [&](std::size_t, int) { ++nested_runs; };
  Options outer = quiet(2);
  outer.disclose_overhead = false;  // a call after the profile would start the nested one
  detail::run_sweep(
      gpu, outer, two_configs(),
      [&](std::size_t, int) {
        Annotation a("work");
        kprof::testing::ScriptedBackend other;
        EXPECT_THROW(detail::run_sweep(
                         other, quiet(1), Sweep(), [](std::size_t, int) {}, nested_hooks),
                     AnnotationError);
      },
      hooks);
  EXPECT_EQ(nested_runs, 0);
  const std::vector<std::tuple<std::size_t, int>> runs = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  EXPECT_EQ(observed, runs);
}

TEST(RangeReplay, SessionsAreSizedByTheUnmeasuredCalls) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/2);
  gpu.grows = true;
  detail::run_sweep(gpu, quiet(2), two_configs(), [&](std::size_t, int) {
    Annotation a("a");
    Annotation b("b");
    Annotation c("c");
  });
  // The unmeasured calls' 3 regions come first: the first session already holds 4 runs of 3.
  ASSERT_FALSE(gpu.fitted.empty());
  EXPECT_EQ(gpu.fitted.front(), 3u);
  EXPECT_EQ(gpu.session_depths.size(), 1u);
}

TEST(RangeReplay, ASweepLargerThanASessionRunsInSeveral) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/3);
  int calls = 0;
  Results r = detail::run_sweep(gpu, quiet(2), two_configs(), [&](std::size_t, int) {
    ++calls;
    Annotation a("work");
  });
  EXPECT_EQ(gpu.session_depths.size(), 2u);  // 3 runs fit a session of 3 regions, then 1
  EXPECT_EQ(calls, 2 + 2 * 4 + 2);
  ASSERT_EQ(r.records().size(), 4u);
  for (const Record& rec : r.records()) EXPECT_EQ(rec.annotation, "work");
}

// A config whose runs open more regions than the configs before it starts a session of its
// own when it would not fit: its unmeasured call said how wide it is.
TEST(RangeReplay, ASessionTakesARunOnlyWhenItsConfigFits) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/6);
  detail::run_sweep(gpu, quiet(2), two_configs(), [&](std::size_t c, int) {
    for (int k = 0; k < (c == 0 ? 1 : 5); ++k) Annotation a("r" + std::to_string(k));
  });
  // (0,0) and (0,1) take 2 of 6; (1,0) needs 5 more: a session of its own, and (1,1) too.
  EXPECT_EQ(gpu.session_sizes, (std::vector<std::size_t>{2, 5, 5}));
}

// Application replay spends a range on every kernel launch, not on every region: sessions
// fill by the backend's count.
TEST(RangeReplay, SessionsFillByTheRangesTheBackendCounts) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/6);
  gpu.ranges_per_region = 3;
  Options o = quiet(2);
  o.replay_mode = ReplayMode::application;
  detail::run_sweep(gpu, o, two_configs(), [&](std::size_t, int) { Annotation a("work"); });
  // Two runs of 3 ranges fill a session of 6; one region each would have fit all four.
  EXPECT_EQ(gpu.session_sizes, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(gpu.fitted.front(), 3u);
}

// Range replay: a config whose unmeasured call fails starts a session of its own, so that the
// sessions before it are measured whole.
TEST(RangeReplay, AFailingUnmeasuredCallKeepsTheSessionsBeforeIt) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/100);
  const Sweep sweep = Sweep().axis("n", {Value(std::int64_t{1}), Value(std::int64_t{2})});
  try {
    detail::run_sweep(gpu, quiet(2), sweep, [&](std::size_t c, int) {
      Annotation a("work");
      if (c == 1) throw std::runtime_error("config 2 is broken");
    });
    FAIL() << "no error";
  } catch (const UserFunctionError& e) {
    EXPECT_EQ(e.config(), 1u);
    ASSERT_TRUE(e.partial_results());
    EXPECT_EQ(e.partial_results()->records().size(), 2u);  // both runs of config 1
  }
  ASSERT_FALSE(gpu.session_sizes.empty());
  EXPECT_EQ(gpu.session_sizes.front(), 2u);  // the first config's 2 runs, without the second
}

// The depth a session profiles is the deepest of all configs, not the first config's.
TEST(RangeReplay, ALaterConfigMayNestDeeper) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/100);
  Results r = detail::run_sweep(gpu, quiet(1), two_configs(), [&](std::size_t c, int) {
    Annotation outer("outer");
    if (c == 1) Annotation inner("inner");
  });
  EXPECT_EQ(gpu.session_depths, std::vector<int>{2});
  EXPECT_EQ(r.rows().size(), 3u);  // outer twice, outer/inner once
}

TEST(RangeReplay, NestedRegionsKeepTheirOwnValues) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/100);
  Results r = detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
    Annotation outer("outer");
    Annotation inner("inner");
  });
  EXPECT_EQ(gpu.session_depths, std::vector<int>{2});  // found by the unmeasured call
  ASSERT_EQ(r.records().size(), 2u);
  for (const Record& rec : r.records())  // outer was opened first, inner second
    EXPECT_EQ(rec.value, rec.annotation == "outer" ? 1 : 2) << rec.annotation;
}

// Work the backend refuses in a config's unmeasured call (a CUDA graph in application replay)
// is raised when the sweep reaches that config: the configs before it are measured.
TEST(RangeReplay, AConfigTheBackendRefusesKeepsTheSessionsBeforeIt) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/100);
  gpu.refused_config = 1;
  try {
    detail::run_sweep(gpu, quiet(2), two_configs(), [&](std::size_t, int) { Annotation a("w"); });
    FAIL() << "no error";
  } catch (const MeasurementError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be measured"), std::string::npos) << e.what();
    ASSERT_TRUE(e.partial_results());
    EXPECT_EQ(e.partial_results()->records().size(), 2u);  // both runs of the first config
  }
}

TEST(RangeReplay, EachLaterPassIsSaidAtInfo) {
  ScriptedReplayBackend gpu(/*passes=*/3, /*capacity=*/100);
  std::vector<std::string> lines;
  set_log_sink([&](std::string_view l) {
    if (l.find("range replay") != std::string_view::npos) lines.emplace_back(l);
  });
  Options o = quiet(2);
  o.verbosity = Verbosity::info;
  detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) { Annotation a("work"); });
  set_log_sink(nullptr);
  EXPECT_EQ(lines, (std::vector<std::string>{"[kprof] range replay: pass 2 of 3 over 2 run(s)",
                                             "[kprof] range replay: pass 3 of 3 over 2 run(s)"}));
}

TEST(RangeReplay, CollectorsAreCalledForTheFirstPassOnly) {
  ScriptedReplayBackend gpu(/*passes=*/4, /*capacity=*/100);
  int annotation_calls = 0, run_calls = 0;
  Options o = quiet(2);
  o.info_collectors = {
      {"a", CollectionScope::annotation,
       [&](const CollectorCall&) -> InfoResult { return double(++annotation_calls); }},
      {"r", CollectionScope::run,
       [&](const CollectorCall&) -> InfoResult { return double(++run_calls); }}};
  Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) { Annotation a("work"); });
  EXPECT_EQ(annotation_calls, 2);  // once per run, not once per pass
  EXPECT_EQ(run_calls, 2);
  EXPECT_EQ(r.info().size(), 4u);
}

TEST(RangeReplay, AnnotationsOpenBeforeTheProfileDoNotDeepenItsRegions) {
  ScriptedReplayBackend gpu(/*passes=*/2, /*capacity=*/100);
  Annotation around("script");  // outside the profile: no region, no range
  detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
    Annotation outer("outer");
    Annotation inner("inner");
  });
  EXPECT_EQ(gpu.session_depths, std::vector<int>{2});
  // outer and inner in the unmeasured call and in each of the two passes
  EXPECT_EQ(gpu.depths, (std::vector<int>{1, 2, 1, 2, 1, 2}));
}

TEST(RangeReplay, APassThatOpensOtherAnnotationsIsAnError) {
  ScriptedReplayBackend gpu(/*passes=*/3, /*capacity=*/100);
  int calls = 0;
  try {
    detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
      Annotation a(++calls == 3 ? "other" : "work");  // call 3 is the second pass
    });
    FAIL() << "no error";
  } catch (const MeasurementError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("pass 2"), std::string::npos) << what;
    EXPECT_NE(what.find("'other'"), std::string::npos) << what;
    EXPECT_NE(what.find("'work'"), std::string::npos) << what;
  }
}

}  // namespace

namespace {

// A backend whose collection is costly (the range profiler in kernel replay) is collected once,
// when the sweep ends, unless a stopping rule needs the values.
class CollectOnce : public kprof::testing::ScriptedBackend {
 public:
  CollectOnce() { per_config = false; }
};

TEST(Engine, ABackendThatCollectsOnceIsCollectedWhenTheSweepEnds) {
  CollectOnce gpu;
  Options o;
  o.runs = 2;
  o.verbosity = Verbosity::silent;
  o.thermal_mode = ThermalMode::off;
  Results r = detail::run_sweep(gpu, o, two_configs(), [&](std::size_t, int) {
    Annotation a("k");
    gpu.launch("k", 5);
  });
  EXPECT_EQ(gpu.collects, 1);
  EXPECT_EQ(r.records().size(), 4u);
  o.stopping = StoppingRule{0.5, 2, 4, 0};
  CollectOnce ruled;
  detail::run_sweep(ruled, o, two_configs(), [&](std::size_t, int) {
    Annotation a("k");
    ruled.launch("k", 5);
  });
  EXPECT_EQ(ruled.collects, 2);  // the rule checks each config
}

}  // namespace

namespace {

class TimedProfiler : public kprof::testing::ScriptedBackend {
 public:
  double profiler_seconds() const override { return 1.25; }
};

TEST(Engine, TheSessionSaysHowLongTheProfileSpentInsideTheProfiler) {
  TimedProfiler gpu;
  Options o = quiet(1);
  o.replay_mode = ReplayMode::kernel;
  o.metrics = {"gpu__time_duration.sum"};
  Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) {
    Annotation a("k");
    gpu.launch("k", 5);
  });
  EXPECT_DOUBLE_EQ(r.session().profiler_seconds, 1.25);
  EXPECT_DOUBLE_EQ(Results::from_json(r.to_json()).session().profiler_seconds, 1.25);
  kprof::testing::ScriptedBackend plain;  // activity records: no profiler
  Results d = detail::run_sweep(plain, o, Sweep(), [&](std::size_t, int) {
    Annotation a("k");
    plain.launch("k", 5);
  });
  EXPECT_TRUE(std::isnan(d.session().profiler_seconds));
}

}  // namespace
