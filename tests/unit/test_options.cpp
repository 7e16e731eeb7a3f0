#include <gtest/gtest.h>

#include "kprof/errors.hpp"
#include "kprof/options.hpp"

using namespace kprof;

TEST(Options, DefaultsMatchNsightPython) {
  Options o;
  EXPECT_EQ(o.runs, 1);
  EXPECT_EQ(o.metrics, std::vector<std::string>{"gpu__time_duration.sum"});
  EXPECT_EQ(o.cache_control, CacheControl::all);
  EXPECT_EQ(o.clock_control, ClockControl::none);
  EXPECT_EQ(o.replay_mode, ReplayMode::kernel);
  EXPECT_EQ(o.thermal_mode, ThermalMode::automatic);
  EXPECT_EQ(static_cast<int>(o.verbosity), 3);
  EXPECT_NO_THROW(o.validate());
}

TEST(Options, ParsesEveryValidName) {
  EXPECT_EQ(parse_cache_control("none"), CacheControl::none);
  EXPECT_EQ(parse_clock_control("base"), ClockControl::base);
  EXPECT_EQ(parse_replay_mode("range"), ReplayMode::range);
  EXPECT_EQ(parse_replay_mode("application"), ReplayMode::application);
  EXPECT_EQ(parse_thermal_mode("auto"), ThermalMode::automatic);
  EXPECT_EQ(parse_thermal_mode("off"), ThermalMode::off);
  EXPECT_EQ(parse_verbosity("debug"), Verbosity::debug);
  EXPECT_EQ(parse_combine("max"), CombineKind::max);
  EXPECT_EQ(to_string(parse_cache_control("all")), "all");
  EXPECT_EQ(to_string(ThermalMode::automatic), "auto");
}

TEST(Options, UnknownValueNamesOptionValueAndChoices) {
  try {
    parse_cache_control("warm");
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "cache_control");
    EXPECT_EQ(e.value(), "'warm'");
    EXPECT_EQ(e.valid(), "'all' or 'none'");
    EXPECT_STREQ(e.kind(), "OptionError");
  }
  EXPECT_THROW(parse_replay_mode("app"), OptionError);
  EXPECT_THROW(parse_thermal_mode("on"), OptionError);
  EXPECT_THROW(parse_combine("custom"), OptionError);
  EXPECT_THROW(parse_combine("auto"), OptionError);
}

TEST(Options, RunsBelowOneRejected) {
  Options o;
  o.runs = 0;
  try {
    o.validate();
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "runs");
    EXPECT_EQ(e.value(), "0");
  }
}

TEST(Options, ThermalContMustExceedWait) {
  Options o;
  o.thermal.wait = 20;
  o.thermal.cont = 10;
  try {
    o.validate();
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "thermal_cont");
  }
}

TEST(Options, RangeReplayNeedsAFixedNumberOfRuns) {
  Options range;
  range.replay_mode = ReplayMode::range;
  range.metrics = {"dram__bytes_read.sum"};
  range.runs = 3;
  EXPECT_NO_THROW(range.validate());
  range.ignore_kernels = {"warmup"};
  try {
    range.validate();
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "ignore_kernel_list");
  }
  range.ignore_kernels.clear();
  range.stopping = StoppingRule{};
  try {
    range.validate();
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "runs");
    EXPECT_NE(std::string(e.what()).find("replay_mode='range'"), std::string::npos) << e.what();
  }
}

TEST(Options, ApplicationReplayNeedsAFixedNumberOfRunsButMayIgnoreKernels) {
  Options app;
  app.replay_mode = ReplayMode::application;
  app.metrics = {"dram__bytes_read.sum"};
  app.ignore_kernels = {"warmup"};  // values are per kernel, as in kernel replay
  EXPECT_NO_THROW(app.validate());
  app.stopping = StoppingRule{};
  try {
    app.validate();
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "runs");
    EXPECT_NE(std::string(e.what()).find("replay_mode='application'"), std::string::npos)
        << e.what();
  }
}

TEST(Options, EmptyMetricListRejected) {
  Options o;
  o.metrics.clear();
  EXPECT_THROW(o.validate(), OptionError);
}

TEST(Errors, JoinChoices) {
  EXPECT_EQ(join_choices({"a"}), "'a'");
  EXPECT_EQ(join_choices({"a", "b", "c"}), "'a', 'b' or 'c'");
}
