// Measurement conditions in the engine and the results, without a GPU: info collectors, the
// per-run context a (scripted) NVML probe reports and throttle detection (the thermal guard:
// test_thermal_in_engine.cpp; files: test_condition_files.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "conditions_support.hpp"
#include "core/measure/engine.hpp"
#include "core/measure/paced_reading.hpp"
#include "core/results/aggregate.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using namespace kprof::testing::conditions;

// ---- info collectors ---------------------------------------------------------------------------

TEST(InfoCollectors, EachScopeIsCalledWhenNsightPythonCallsIt) {
  ScriptedBackend gpu;
  Options o = quiet(3);
  o.combine = CombineKind::sum;  // the outer region holds the inner one's kernel
  std::vector<std::string> calls;
  auto log = [&](const CollectorCall& c) {
    calls.push_back(to_string(c.scope) + " " + std::to_string(c.config) + " " +
                    std::to_string(c.run) + " " + c.annotation);
    return InfoResult{1.0};
  };
  for (auto scope : {CollectionScope::once, CollectionScope::config, CollectionScope::run,
                     CollectionScope::annotation})
    o.info_collectors.push_back(collector(to_string(scope), scope, log));
  detail::run_sweep(gpu, o, Sweep().axis("n", {1, 2}), [&](std::size_t c, int run) {
    calls.push_back("body " + std::to_string(c) + " " + std::to_string(run));
    Annotation outer("a");
    gpu.launch("k", 1);
    Annotation inner("b");
    gpu.launch("k", 1);
  });
  const std::vector<std::string> first_config{
      "once 0 -1 ",       "config 0 -1 ",       "run 0 0 ",    "body 0 0",
      "annotation 0 0 a", "annotation 0 0 a/b", "run 0 1 ",    "body 0 1",
      "annotation 0 1 a", "annotation 0 1 a/b", "run 0 2 ",    "body 0 2",
      "annotation 0 2 a", "annotation 0 2 a/b", "config 1 -1 "};
  ASSERT_GE(calls.size(), first_config.size());
  EXPECT_EQ(std::vector<std::string>(calls.begin(), calls.begin() + 15), first_config);
  // Collectors are not called around the unprofiled calls after the profile.
  EXPECT_EQ(calls.size(), 1 + 2 * (1 + 3 * 4) + 2);
  EXPECT_EQ(calls.back(), "body 1 -1");
}

TEST(InfoCollectors, NumbersBecomeStatisticsAndOnceOrTextOneValue) {
  ScriptedBackend gpu;
  Options o = quiet(3);
  o.combine = CombineKind::sum;  // the outer region holds the inner one's kernel
  o.info_collectors = {
      collector("driver", CollectionScope::once, [](auto&) { return InfoResult{"590.1"}; }),
      collector("size", CollectionScope::config,
                [](const CollectorCall& c) { return InfoResult{100.0 * (c.config + 1)}; }),
      collector("clock", CollectionScope::run,
                [](const CollectorCall& c) { return InfoResult{1000.0 + c.run}; }),
      collector("tag", CollectionScope::run,
                [](const CollectorCall& c) { return InfoResult{"run" + std::to_string(c.run)}; }),
      collector("depth", CollectionScope::annotation,
                [](const CollectorCall& c) { return InfoResult{c.annotation == "a" ? 1.0 : 2.0}; }),
      collector("nothing", CollectionScope::run, [](auto&) { return InfoResult{}; }),
  };
  Results r = detail::run_sweep(gpu, o, Sweep().axis("n", {1, 2}), [&](std::size_t, int) {
    Annotation outer("a");
    gpu.launch("k", 1);
    Annotation inner("b");
    gpu.launch("k", 1);
  });
  const Row& a1 = row(r, "a", 1);
  ASSERT_EQ(a1.info.size(), 6u);
  EXPECT_EQ(a1.info[0].name, "driver");  // the collectors' order
  EXPECT_FALSE(info(a1, "driver").numeric);
  EXPECT_EQ(info(a1, "driver").text, "590.1");
  EXPECT_TRUE(info(a1, "size").numeric);
  EXPECT_DOUBLE_EQ(info(a1, "size").mean, 200);
  EXPECT_TRUE(std::isnan(info(a1, "size").stddev));  // one value per config
  EXPECT_DOUBLE_EQ(info(a1, "clock").mean, 1001);
  EXPECT_DOUBLE_EQ(info(a1, "clock").stddev, 1);
  EXPECT_DOUBLE_EQ(info(a1, "clock").min, 1000);
  EXPECT_DOUBLE_EQ(info(a1, "clock").max, 1002);
  EXPECT_FALSE(info(a1, "tag").numeric);
  EXPECT_EQ(info(a1, "tag").text, "run0");  // the first
  EXPECT_DOUBLE_EQ(info(a1, "depth").mean, 1);
  EXPECT_DOUBLE_EQ(info(row(r, "a/b", 1), "depth").mean, 2);  // per annotation
  EXPECT_TRUE(info(a1, "nothing").numeric);
  EXPECT_TRUE(std::isnan(info(a1, "nothing").mean));
  // The raw values: 1 once + 2 config + 3 x 6 run + 2 x 6 annotation.
  EXPECT_EQ(r.info().size(), 1u + 2 + 3 * 6 + 2 * 6);
  const InfoValue& first_clock = r.info()[2];
  EXPECT_EQ(first_clock.name, "clock");
  EXPECT_EQ(first_clock.scope, "run");
  EXPECT_EQ(first_clock.run, 0);
  EXPECT_DOUBLE_EQ(first_clock.value, 1000);
}

TEST(InfoCollectors, AThrowingCollectorGivesNoValueAndOneWarning) {
  ScriptedBackend gpu;
  Options o = quiet(3);
  o.verbosity = Verbosity::info;
  o.info_collectors = {collector("flaky", CollectionScope::run, [](const CollectorCall& c) {
    if (c.run != 1) throw std::runtime_error("sensor busy");
    return InfoResult{5.0};
  })};
  LogCapture log;
  Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) {
    Annotation a("k");
    gpu.launch("k", 1);
  });
  EXPECT_DOUBLE_EQ(info(row(r, "k", 0), "flaky").mean, 5);
  EXPECT_EQ(r.info().size(), 3u);
  EXPECT_TRUE(std::isnan(r.info()[0].value));
  int warnings = 0;
  for (const auto& l : log.lines) warnings += l.find("'flaky'") != std::string::npos;
  EXPECT_EQ(warnings, 1);
  EXPECT_TRUE(log.has("sensor busy"));
}

TEST(InfoCollectors, AKprofErrorFromACollectorStopsTheSweep) {
  ScriptedBackend gpu;
  Options o = quiet(2);
  o.info_collectors = {
      collector("stop", CollectionScope::run,
                [](const CollectorCall&) -> InfoResult { throw Error("interrupted"); })};
  EXPECT_THROW(detail::run_sweep(gpu, o, Sweep(),
                                 [&](std::size_t, int) {
                                   Annotation a("k");
                                   gpu.launch("k", 1);
                                 }),
               Error);
  EXPECT_EQ(gpu.stops, 1);
}

TEST(InfoCollectors, NamesAreChecked) {
  auto expect_rejected = [](std::vector<InfoCollector> collectors, const std::string& needle) {
    Options o;
    o.info_collectors = std::move(collectors);
    try {
      o.validate();
      FAIL() << "accepted " << needle;
    } catch (const OptionError& e) {
      EXPECT_EQ(e.option(), "info_collectors");
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  auto fn = [](const CollectorCall&) { return InfoResult{}; };
  expect_rejected({collector("AvgValue", CollectionScope::run, fn)}, "'AvgValue'");
  expect_rejected({collector("MeasuredClock", CollectionScope::run, fn)}, "reserved");
  expect_rejected(
      {collector("x", CollectionScope::run, fn), collector("x", CollectionScope::once, fn)},
      "distinct names");
  expect_rejected({collector("", CollectionScope::run, fn)}, "non-empty");
  expect_rejected({collector("y", CollectionScope::run, nullptr)}, "function");
  EXPECT_EQ(parse_collection_scope("annotation"), CollectionScope::annotation);
  EXPECT_THROW(parse_collection_scope("kernel"), OptionError);
}

// ---- per-run context and throttling ------------------------------------------------------------

TEST(RunContext, ClockTemperatureAndReasonsAreKeptPerRunAndSummarisedPerRow) {
  RatedBackend gpu;
  ScriptedProbe nvml;
  // One reading per run, just after it.
  nvml.readings = {reading(1980, 45, detail::kReasonSwPowerCap), reading(1800, 47, 0)};
  detail::SweepServices services = read_every_run(nvml);
  Results r = sweep_one_kernel(gpu, quiet(2), services);
  ASSERT_EQ(r.run_info().size(), 2u);
  const RunInfo& first = r.run_info()[0];
  EXPECT_DOUBLE_EQ(first.sm_clock_khz, 1980000);
  EXPECT_DOUBLE_EQ(first.temperature_c, 45);
  EXPECT_EQ(first.clock_event_reasons, static_cast<std::int64_t>(detail::kReasonSwPowerCap));
  EXPECT_EQ(first.throttled, false);
  const Row& k = row(r, "k", 0);
  EXPECT_DOUBLE_EQ(k.measured_clock_khz, 0.5 * (1980000 + 1800000));
  EXPECT_DOUBLE_EQ(k.temperature_c, 46);
  EXPECT_DOUBLE_EQ(k.throttled_runs, 0);
  EXPECT_DOUBLE_EQ(r.session().throttle_threshold, 0.75);
}

// A probe whose every reading costs 2 ms (NVML on a virtualised GPU), runs of 10 ms: a reading
// is read anew once the last one is 50 ms old (100 times its cost would be 200 ms).
TEST(RunContext, SlowReadingsAreSharedByTheRunsThatFollowThem) {
  RatedBackend gpu;
  double now = 0;
  struct SlowProbe : ScriptedProbe {
    double* now = nullptr;
    detail::DeviceReading read() override {
      *now += 0.002;
      return ScriptedProbe::read();
    }
  } slow;
  slow.readings = {reading(1980, 60, 0), reading(1980, 61, 0), reading(1980, 62, 0)};
  slow.now = &now;
  detail::SweepServices services;
  services.device = &slow;
  services.now_s = [&] { return now; };
  Results r = detail::run_sweep(
      gpu, quiet(12), Sweep(),
      [&](std::size_t, int) {
        now += 0.01;
        Annotation a("k");
        gpu.launch("k", 1);
      },
      {}, services);
  // Read after runs 0 (t=10 ms), 5 (62 ms, 52 ms after) and 10 (114 ms).
  EXPECT_EQ(slow.next, 3u);
  std::vector<double> temperatures;
  for (const RunInfo& run : r.run_info()) temperatures.push_back(run.temperature_c);
  EXPECT_EQ(temperatures, (std::vector<double>{60, 60, 60, 60, 60, 61, 61, 61, 61, 61, 62, 62}));
}

TEST(PacedReading, ACheapReadingIsTakenEveryTime) {
  double now = 0;
  detail::PacedReading<int> paced([&] { return now; });
  int reads = 0;
  for (int i = 0; i < 5; ++i) {
    now += 1e-6;
    paced.get([&] { return ++reads; });
  }
  EXPECT_EQ(reads, 5);
}

TEST(PacedReading, AReadingIsKeptForFourHundredTimesItsCostUpTo50Ms) {
  double now = 0;
  detail::PacedReading<int> paced([&] { return now; });
  int reads = 0;
  double cost = 1e-5;
  const auto read = [&] {
    now += cost;  // 10 us: kept for 4 ms
    return ++reads;
  };
  EXPECT_EQ(paced.get(read), 1);
  now = 0.0039;
  EXPECT_EQ(paced.get(read), 1);
  now = 0.0041;
  EXPECT_EQ(paced.get(read), 2);
  cost = 1e-3;  // 1 ms: kept for 50 ms, not 400 ms
  now = 0.01;
  EXPECT_EQ(paced.get(read), 3);
  now = 0.0595;
  EXPECT_EQ(paced.get(read), 3);
  now = 0.0605;
  EXPECT_EQ(paced.get(read), 4);
  // The thermal headroom's reading is kept for up to 0.5 s.
  cost = 2e-3;
  detail::PacedReading<int> margin([&] { return now; }, detail::PacedReading<int>::kMarginMaxAge);
  now = 1;
  EXPECT_EQ(margin.get(read), 5);
  now = 1.4995;
  EXPECT_EQ(margin.get(read), 5);
  now = 1.5005;
  EXPECT_EQ(margin.get(read), 6);
}

TEST(RunContext, RunsBelowTheThresholdAreFlaggedCountedAndWarned) {
  RatedBackend gpu;
  ScriptedProbe nvml;
  // 1200 MHz < 75% of 1980 MHz (1485): throttled; 1500 is not.
  nvml.readings = {reading(1200, 88, detail::kReasonHwThermalSlowdown), reading(1500, 80, 0)};
  detail::SweepServices services = read_every_run(nvml);
  Options o = quiet(3);
  o.verbosity = Verbosity::info;
  LogCapture log;
  Results r = sweep_one_kernel(gpu, o, services);
  EXPECT_EQ(r.run_info()[0].throttled, true);
  EXPECT_EQ(r.run_info()[1].throttled, false);
  EXPECT_DOUBLE_EQ(row(r, "k", 0).throttled_runs, 1);
  EXPECT_TRUE(log.has("1 of 3 runs ran with the SM clock below 75% of the rated 1980 MHz"));
  EXPECT_NE(r.table().find("throttled: 1 of 3 runs"), std::string::npos) << r.table();
}

TEST(RunContext, IdleOrZeroReadingsGiveNoClockAndNoThrottleFlag) {
  RatedBackend gpu;
  ScriptedProbe nvml;
  // Seen on the H200 VM: NVML answers an SM clock of 0; or the GPU idled when it was read.
  nvml.readings = {reading(0, 40, 0), reading(345, 41, detail::kReasonGpuIdle)};
  detail::SweepServices services = read_every_run(nvml);
  Options o = quiet(2);
  o.verbosity = Verbosity::info;
  LogCapture log;
  Results r = sweep_one_kernel(gpu, o, services);
  for (const RunInfo& run : r.run_info()) {
    EXPECT_TRUE(std::isnan(run.sm_clock_khz));
    EXPECT_FALSE(run.throttled.value_or(false));
  }
  EXPECT_FALSE(log.has("ran with the SM clock below"));
}

TEST(RunContext, ThresholdZeroFlagsNothing) {
  RatedBackend gpu;
  ScriptedProbe nvml;
  nvml.readings = {reading(100, 90, 0)};
  detail::SweepServices services = read_every_run(nvml);
  Options o = quiet(1);
  o.throttle_threshold = 0;
  Results r = sweep_one_kernel(gpu, o, services);
  EXPECT_FALSE(r.run_info()[0].throttled.has_value());
  EXPECT_TRUE(std::isnan(row(r, "k", 0).throttled_runs));
}

TEST(RunContext, WithoutNvmlTheColumnsAreNaNAndItIsSaidOnce) {
  RatedBackend gpu;
  detail::SweepServices services;
  services.device_unavailable =
      "libnvidia-ml.so.1 could not be loaded (test " + std::to_string(getpid()) + ")";
  Options o = quiet(2);
  o.verbosity = Verbosity::info;
  LogCapture log;
  for (int i = 0; i < 2; ++i) {
    Results r = sweep_one_kernel(gpu, o, services);
    EXPECT_TRUE(std::isnan(row(r, "k", 0).measured_clock_khz));
    EXPECT_TRUE(std::isnan(row(r, "k", 0).temperature_c));
    EXPECT_TRUE(std::isnan(row(r, "k", 0).throttled_runs));
    EXPECT_FALSE(r.run_info()[0].throttled.has_value());
    EXPECT_EQ(r.run_info()[0].clock_event_reasons, -1);
  }
  int said = 0;
  for (const auto& l : log.lines) said += l.find("could not be loaded (test") != std::string::npos;
  EXPECT_EQ(said, 1);
  EXPECT_TRUE(log.has("MeasuredClock, Temperature and ThrottledRuns are NaN"));
}

namespace {

TEST(RunContext, AClockCountedByTheGpuReplacesNvmlReadings) {
  RatedBackend gpu;
  ScriptedProbe nvml;
  nvml.readings = {reading(1980, 40, 0)};  // NVML says full speed around every run
  detail::SweepServices services = read_every_run(nvml);
  Options o = quiet(2);
  o.combine = CombineKind::sum;
  Results r = detail::run_sweep(
      gpu, o, Sweep(),
      [&](std::size_t, int run) {
        Annotation a("k");
        gpu.launch("k1", 1, run == 0 ? 1.2e9 : 1.9e9);  // the counters: 1200 MHz, then 1900
        gpu.launch("k2", 1, run == 0 ? 1.0e9 : 1.9e9);
      },
      {}, services);
  ASSERT_EQ(r.run_info().size(), 2u);
  EXPECT_DOUBLE_EQ(r.run_info()[0].sm_clock_khz, 1.1e6);  // the mean of the run's kernels
  EXPECT_EQ(r.run_info()[0].throttled, true);             // below 75% of 1980 MHz
  EXPECT_DOUBLE_EQ(r.run_info()[1].sm_clock_khz, 1.9e6);
  EXPECT_EQ(r.run_info()[1].throttled, false);
  EXPECT_EQ(r.session().clock_source, "counters");
  EXPECT_DOUBLE_EQ(row(r, "k", 0).throttled_runs, 1);
}

TEST(RunContext, TheClockSourceSaysNvmlOrNothing) {
  RatedBackend gpu;
  ScriptedProbe nvml;
  nvml.readings = {reading(1980, 40, 0)};
  detail::SweepServices services = read_every_run(nvml);
  auto body = [&](std::size_t, int) {
    Annotation a("k");
    gpu.launch("k", 1);
  };
  EXPECT_EQ(detail::run_sweep(gpu, quiet(1), Sweep(), body, {}, services).session().clock_source,
            "nvml");
  EXPECT_EQ(detail::run_sweep(gpu, quiet(1), Sweep(), body).session().clock_source, "");
  nvml.readings.front().clock_from_kernel = true;  // NVML had no clock: a probe kernel had
  EXPECT_EQ(detail::run_sweep(gpu, quiet(1), Sweep(), body, {}, services).session().clock_source,
            "probe kernel");
}

}  // namespace
