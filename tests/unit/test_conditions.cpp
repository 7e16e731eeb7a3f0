// Measurement conditions in the engine and the results, without a GPU: info collectors, the
// per-run context a (scripted) NVML probe reports, throttle detection, the thermal guard
// before every run, their options, and their JSON / CSV round trip.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/aggregate.hpp"
#include "core/engine.hpp"
#include "core/paced_reading.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using kprof::testing::ScriptedBackend;

namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

Options quiet(int runs) {
  Options o;
  o.runs = runs;
  o.verbosity = Verbosity::silent;
  o.thermal_mode = ThermalMode::off;
  return o;
}

const Row& row(const Results& r, const std::string& annotation, std::size_t config) {
  for (const auto& x : r.rows())
    if (x.annotation == annotation && x.config == config) return x;
  throw std::runtime_error("no row " + annotation);
}

const InfoStat& info(const Row& r, const std::string& name) {
  for (const auto& s : r.info)
    if (s.name == name) return s;
  throw std::runtime_error("no info column " + name);
}

// A GPU with a rated SM clock of 1980 MHz.
class RatedBackend : public ScriptedBackend {
 public:
  SessionInfo describe() override {
    SessionInfo s = ScriptedBackend::describe();
    s.compute_clock_khz = 1980000;
    return s;
  }
};

// NVML as a script: readings in order, the last one repeated.
class ScriptedProbe : public detail::DeviceProbe {
 public:
  std::vector<detail::DeviceReading> readings;
  std::vector<std::optional<int>> margins{40};
  std::string why_not;
  std::size_t next = 0, next_margin = 0;

  std::string unavailable() const override { return why_not; }
  detail::DeviceReading read() override { return readings[std::min(next++, readings.size() - 1)]; }
  std::optional<int> margin_c() override {
    return margins[std::min(next_margin++, margins.size() - 1)];
  }
  std::optional<int> temperature_c() override { return 70; }
};

// A sweep of one config whose every run launches kernel "k" in region "k".
Results sweep_one_kernel(ScriptedBackend& gpu, const Options& o,
                         const detail::SweepServices& services) {
  return detail::run_sweep(
      gpu, o, Sweep(),
      [&](std::size_t, int) {
        Annotation a("k");
        gpu.launch("k", 1);
      },
      {}, services);
}

// Services reading `probe` after every run: on a clock that stands still a reading costs
// nothing, so no run shares another's (PacedReading).
detail::SweepServices read_every_run(detail::DeviceProbe& probe) {
  detail::SweepServices services;
  services.device = &probe;
  services.now_s = [] { return 0.0; };
  return services;
}

detail::DeviceReading reading(double mhz, int celsius, std::uint64_t reasons) {
  return {1000 * mhz, celsius, reasons};
}

struct LogCapture {
  std::vector<std::string> lines;
  LogCapture() {
    set_log_sink([this](std::string_view l) { lines.emplace_back(l); });
  }
  ~LogCapture() { set_log_sink(nullptr); }
  bool has(const std::string& needle) const {
    for (const auto& l : lines)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }
};

InfoCollector collector(std::string name, CollectionScope scope,
                        std::function<InfoResult(const CollectorCall&)> fn) {
  return {std::move(name), scope, std::move(fn)};
}

}  // namespace

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
  EXPECT_EQ(calls.size(), 1 + 2 * (1 + 3 * 4));
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

TEST(PacedReading, AReadingIsKeptForAHundredTimesItsCost) {
  double now = 0;
  detail::PacedReading<int> paced([&] { return now; });
  int reads = 0;
  const auto read = [&] {
    now += 1e-4;  // 0.1 ms: kept for 10 ms
    return ++reads;
  };
  EXPECT_EQ(paced.get(read), 1);
  now = 0.0095;
  EXPECT_EQ(paced.get(read), 1);
  now = 0.0101;
  EXPECT_EQ(paced.get(read), 2);
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

// ---- the thermal guard in the engine
// -------------------------------------------------------------

TEST(ThermalInEngine, PausesBeforeRunsAndKeepsThePauseOutOfTheTimeBudget) {
  ScriptedBackend gpu;
  ScriptedProbe gpu_temperature;
  // supported(), run 0 fine; before run 1 hot: the guard waits for 23 (adapted: 1 run since it
  // started counting), which takes two polls.
  gpu_temperature.margins = {30, 30, 8, 12, 25};
  double now = 0;
  std::vector<double> sleeps;
  detail::SweepServices services;
  services.thermal = &gpu_temperature;
  services.now_s = [&] { return now; };
  services.sleep_s = [&](double s) {
    sleeps.push_back(s);
    now += s;
  };
  Options o = quiet(3);
  o.thermal_mode = ThermalMode::automatic;
  Results r = detail::run_sweep(
      gpu, o, Sweep(),
      [&](std::size_t, int) {
        now += 0.25;
        Annotation a("k");
        gpu.launch("k", 1);
      },
      {}, services);
  EXPECT_EQ(sleeps, (std::vector<double>{0.5, 0.5}));
  EXPECT_DOUBLE_EQ(r.run_info()[0].pause_s, 0);
  EXPECT_DOUBLE_EQ(r.run_info()[1].pause_s, 1.0);
  EXPECT_DOUBLE_EQ(r.config_info()[0].seconds, 0.75);  // the pause is not the config's time
  EXPECT_EQ(r.session().thermal_mode, "auto");
}

TEST(ThermalInEngine, ACoolingTimeoutStopsTheSweepWithWhatWasMeasured) {
  ScriptedBackend gpu;
  ScriptedProbe hot;
  hot.margins = {30, 30, 30, 5};  // supported(), runs 0 and 1, then never cools back
  double now = 0;
  detail::SweepServices services;
  services.thermal = &hot;
  services.now_s = [&] { return now; };
  services.sleep_s = [&](double s) { now += s; };
  Options o = quiet(4);
  o.thermal_mode = ThermalMode::manual;
  o.thermal.timeout_s = 10;
  try {
    sweep_one_kernel(gpu, o, services);
    FAIL() << "no timeout";
  } catch (const CoolingTimeoutError& e) {
    ASSERT_TRUE(e.partial_results());
    EXPECT_EQ(row(*e.partial_results(), "k", 0).num_runs, 2u);
  }
  EXPECT_EQ(gpu.stops, 1);
}

TEST(ThermalInEngine, AnInterruptStopsALongPause) {
  ScriptedBackend gpu;
  ScriptedProbe hot;
  hot.margins = {30, 5};  // hot before the first run, and stays hot
  double now = 0;
  int polls = 0;
  detail::SweepServices services;
  services.thermal = &hot;
  services.now_s = [&] { return now; };
  services.sleep_s = [&](double s) { now += s; };
  detail::SweepHooks hooks;
  hooks.interrupt_poll = [&] {
    if (++polls == 4) throw Error("interrupted (test)");  // Ctrl-C after two seconds
  };
  Options o = quiet(2);
  o.thermal_mode = ThermalMode::automatic;
  EXPECT_THROW(
      detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) {}, hooks, services), Error);
  EXPECT_EQ(polls, 4);
  EXPECT_DOUBLE_EQ(now, 2.0);
  EXPECT_EQ(gpu.stops, 1);
}

TEST(ThermalInEngine, AGpuWithoutHeadroomTurnsTheGuardOffAndSaysSo) {
  ScriptedBackend gpu;
  ScriptedProbe no_margin;
  no_margin.margins = {std::nullopt};
  detail::SweepServices services;
  services.thermal = &no_margin;
  Options o = quiet(1);
  o.thermal_mode = ThermalMode::automatic;
  o.verbosity = Verbosity::info;
  LogCapture log;
  sweep_one_kernel(gpu, o, services);
  // Said once per process: another test may have said it first.
  (void)log;
  EXPECT_EQ(no_margin.next_margin, 1u);  // asked once (supported()), never before a run
}

TEST(ThermalOptions, ValuesInEffectAreChecked) {
  auto option_of = [](Options o) -> std::string {
    try {
      o.validate();
      return "";
    } catch (const OptionError& e) {
      return e.option();
    }
  };
  Options o;
  o.thermal.wait = 25;  // default cont 20 <= 25: refused (nsight-python accepts it)
  EXPECT_EQ(option_of(o), "thermal_wait");
  o = {};
  o.thermal.cont = 8;  // <= default wait 10
  EXPECT_EQ(option_of(o), "thermal_cont");
  o = {};
  o.thermal.device = -1;
  EXPECT_EQ(option_of(o), "thermal_device");
  o = {};
  o.thermal.timeout_s = 0;
  EXPECT_EQ(option_of(o), "thermal_timeout");
  o = {};
  o.throttle_threshold = 1.5;
  EXPECT_EQ(option_of(o), "throttle_threshold");
  o = {};
  o.thermal_mode = ThermalMode::manual;
  o.thermal.wait = 5;
  o.thermal.cont = 15;
  o.thermal.timeout_s = 60;
  o.thermal.device = 1;
  o.clock_control = ClockControl::base;
  EXPECT_EQ(option_of(o), "");
}

// ---- files
// ---------------------------------------------------------------------------------------

namespace {

Results conditions_results() {
  SessionInfo s;
  s.gpu = "synthetic";
  s.backend = "scripted";
  s.compute_clock_khz = 1980000;
  s.metrics = {"gpu__time_duration.sum"};
  s.thermal_mode = "manual";
  s.throttle_threshold = 0.75;
  s.stop_rel_half_width = 0.01;
  s.stop_min_runs = 5;
  s.stop_max_runs = 100;
  s.stop_time_budget_s = 15;
  Sweep sweep = Sweep::list({"n"}, {{std::int64_t{1}}, {std::int64_t{2}}});
  std::vector<Record> records;
  detail::Conditions c;
  for (std::size_t config = 0; config < 2; ++config) {
    c.configs.push_back({config, 3, config == 0 ? "precision" : "max_runs", 1.0 / 3});
    for (int run = 0; run < 3; ++run) {
      records.push_back({config, run, "a", "k", 0, "gpu__time_duration.sum", 100.0 + run, "ns"});
      RunInfo ri;
      ri.config = config;
      ri.run = run;
      ri.seconds = 0.1 * (run + 1);
      ri.pause_s = run == 1 ? 1.5 : 0;
      ri.sm_clock_khz = run == 2 ? kNan : 1980000.0 - 1000 * run;
      ri.temperature_c = 60 + run;
      ri.clock_event_reasons = run == 2 ? -1 : 0x41;
      if (run != 2) ri.throttled = run == 1;
      c.runs.push_back(ri);
      InfoValue clock{"clock", "run", config, run, "", 1.0 / 3 + run, ""};
      InfoValue label{
          "label", "annotation", config, run, "a", kNan, "x, \"y\"\n" + std::to_string(run)};
      c.info.push_back(clock);
      c.info.push_back(label);
    }
  }
  c.info.push_back({"driver", "once", 0, -1, "", 590.5, ""});
  Options o;
  return detail::aggregate(s, sweep, records, o, c);
}

class ConditionFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kprof-conditions-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

TEST(ConditionResults, RowsSummariseTheConditions) {
  const Results r = conditions_results();
  const Row& a0 = row(r, "a", 0);
  EXPECT_EQ(a0.runs_done, 3);
  EXPECT_EQ(a0.stopped_by, "precision");
  EXPECT_DOUBLE_EQ(a0.measured_clock_khz, 1979500);  // NaN runs left out
  EXPECT_DOUBLE_EQ(a0.temperature_c, 61);
  EXPECT_DOUBLE_EQ(a0.throttled_runs, 1);
  ASSERT_EQ(a0.info.size(), 3u);
  EXPECT_EQ(a0.info[0].name, "clock");
  EXPECT_DOUBLE_EQ(a0.info[0].mean, 1.0 / 3 + 1);
  EXPECT_FALSE(a0.info[1].numeric);
  EXPECT_EQ(a0.info[1].text, "x, \"y\"\n0");
  EXPECT_FALSE(a0.info[2].numeric);
  EXPECT_DOUBLE_EQ(a0.info[2].value, 590.5);
}

TEST_F(ConditionFiles, JsonRoundTripIsExact) {
  const Results r = conditions_results();
  const Results back = Results::from_json(r.to_json());
  EXPECT_TRUE(back == r);
  EXPECT_EQ(back.run_info().size(), 6u);
  EXPECT_EQ(back.info().size(), 13u);
  EXPECT_EQ(back.session().stop_max_runs, 100);
  EXPECT_FALSE(back.run_info()[2].throttled.has_value());
}

TEST_F(ConditionFiles, CsvRoundTripIsExact) {
  const Results r = conditions_results();
  r.write_csv(path("c_"), "t");
  const Results back = Results::read_csv(path("c_"), "t");
  EXPECT_TRUE(back == r);
  EXPECT_EQ(first_line(path("c_configs-t.csv")),
            "Config,Runs,StoppedBy,Seconds,n,UnprofiledSeconds");
  EXPECT_EQ(first_line(path("c_runs-t.csv")),
            "Config,Run,Seconds,ThermalPause,MeasuredClock,Temperature,ClockEventReasons,"
            "Throttled,n");
  EXPECT_EQ(first_line(path("c_info-t.csv")), "Name,Scope,Config,Run,Annotation,Value,Text,n");
  const std::string processed = first_line(path("c_processed_data-t.csv"));
  EXPECT_NE(processed.find(",RunsDone,StoppedBy,MeasuredClock,Temperature,ThrottledRuns,"
                           "ProfilingOverhead,clock_Avg,clock_Std,clock_Min,clock_Max,label,"
                           "driver"),
            std::string::npos)
      << processed;
}

TEST_F(ConditionFiles, FilesFromBeforeTheConditionsStillRead) {
  // A JSON document without the new fields and tables, as kprof 0.1.0 wrote it.
  const std::string data = std::string(KPROF_TEST_DATA) + "/h200-python-demo-2026-11-30.json";
  const Results old = Results::read_json(data);
  EXPECT_TRUE(old.run_info().empty());
  EXPECT_TRUE(old.config_info().empty());
  EXPECT_TRUE(old.info().empty());
  EXPECT_TRUE(std::isnan(old.session().stop_rel_half_width));
  ASSERT_FALSE(old.rows().empty());
  EXPECT_EQ(old.rows()[0].runs_done, 0);
  // CSV sets without the conditions files read with empty tables.
  old.write_csv(path("o_"), "t");
  for (const char* kind : {"configs", "runs", "info"})
    std::filesystem::remove(path(std::string("o_") + kind + "-t.csv"));
  EXPECT_TRUE(Results::read_csv(path("o_"), "t") == old);
  // processed_data without the conditions columns, as kprof 0.1.0 wrote it.
  const std::string processed = path("o_processed_data-t.csv");
  std::ifstream in(processed);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::string legacy;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    std::string line = text.substr(begin, end - begin);
    // Every line ends with the five conditions cells and ProfilingOverhead (no info columns
    // here): drop them.
    for (int k = 0; k < 6; ++k) line.erase(line.rfind(','));
    legacy += line + "\n";
    begin = end + 1;
  }
  std::ofstream(processed) << legacy;
  EXPECT_EQ(first_line(processed).substr(first_line(processed).rfind(',')), ",Passes");
  EXPECT_TRUE(Results::read_csv(path("o_"), "t") == old);
}

// processed_data of kprof before ProfilingOverhead (with the conditions columns) still reads:
// each generation of added columns is tried.
TEST_F(ConditionFiles, FilesOfTheGenerationBeforeTheOverheadColumnStillRead) {
  const std::string json = std::string(KPROF_TEST_DATA) + "/h200-python-demo-2026-11-30.json";
  const Results old = Results::read_json(json);
  old.write_csv(path("g_"), "t");
  const std::string processed = path("g_processed_data-t.csv");
  std::ifstream in(processed);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::string earlier;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = text.find('\n', begin);
    std::string line = text.substr(begin, end - begin);
    line.erase(line.rfind(','));  // the last cell: ProfilingOverhead
    earlier += line + "\n";
    begin = end + 1;
  }
  std::ofstream(processed) << earlier;
  EXPECT_EQ(first_line(processed).substr(first_line(processed).rfind(',')), ",ThrottledRuns");
  EXPECT_TRUE(Results::read_csv(path("g_"), "t") == old);
}

// The shape of `kprof demo --json --csv`: string and int parameters, a derived metric for some
// configs only, NVML readings of 0 MHz, every file written and read back.
TEST(ConditionResults, ADemoShapedProfileWritesAndReadsEveryFile) {
  RatedBackend gpu;
  ScriptedProbe nvml;
  nvml.readings = {reading(0, 33, 0), reading(0, 34, 0)};
  detail::SweepServices services = read_every_run(nvml);
  services.thermal = &nvml;
  Options o = quiet(3);
  Sweep sweep = Sweep::list({"op", "n"}, {{"scale", 1 << 20}, {"add", 1 << 20}, {"fma", 1 << 22}});
  o.derive = [](const std::vector<double>& v, std::size_t config) -> std::vector<DerivedValue> {
    if (config == 2) return {};
    return {DerivedValue{"bandwidth", 8.0 * (1 << 20) / v[0], "GB/s"}};
  };
  Results r = detail::run_sweep(
      gpu, o, sweep,
      [&](std::size_t c, int) {
        Annotation a(c == 0 ? "scale" : c == 1 ? "add" : "fma");
        gpu.launch("k", 100.0 + c);
      },
      {}, services);
  const auto dir = std::filesystem::temp_directory_path() / "kprof_demo_shape";
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "d-").string();
  const auto paths = r.write_csv(prefix, "demo");
  r.write_json((dir / "demo.json").string());
  EXPECT_TRUE(Results::read_csv(prefix, "demo") == r);
  EXPECT_TRUE(Results::read_json((dir / "demo.json").string()) == r);
  EXPECT_GE(paths.size(), 4u);
  std::filesystem::remove_all(dir);
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
