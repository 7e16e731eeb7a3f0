#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kprof/errors.hpp"
#include "kprof/options.hpp"

using namespace kprof;

TEST(Options, DefaultsMatchNsightPython) {
  Options o;
  EXPECT_EQ(o.runs, 1);
  EXPECT_EQ(o.metrics, std::vector<std::string>{"gpu__time_duration.sum"});
  EXPECT_EQ(o.cache_control, CacheControl::all);
  EXPECT_EQ(o.clock_control, ClockControl::none);
  // nsight-python's "kernel" is kept when asked for; left alone, kprof picks the mode that
  // measures every pass right (chosen_replay_mode).
  EXPECT_EQ(o.replay_mode, ReplayMode::automatic);
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

TEST(Options, AMetricNamedTwiceIsRejected) {
  kprof::Options o;
  o.metrics = {"gpu__time_duration.sum", "dram__bytes_read.sum", "gpu__time_duration.sum"};
  try {
    o.validate_settings();
    ADD_FAILURE() << "no OptionError";
  } catch (const kprof::OptionError& e) {
    EXPECT_EQ(e.option(), "metrics");
    EXPECT_NE(std::string(e.what()).find("'gpu__time_duration.sum' is named twice"),
              std::string::npos)
        << e.what();
  }
}

// What of output_prefix's folder exists must be folders: checked before any GPU work, without
// making anything; make_output_prefix makes the rest, or says why it cannot.
TEST(Options, AnOutputPrefixUnderAFileIsRejected) {
  const auto dir = std::filesystem::temp_directory_path() / "kprof-test-prefix";
  std::filesystem::create_directories(dir);
  const auto file = dir / "a-file";
  std::ofstream(file) << "x";
  kprof::Options o;
  o.output_prefix = (file / "sub" / "run-").string();
  try {
    o.validate_settings();
    ADD_FAILURE() << "no OptionError";
  } catch (const kprof::OptionError& e) {
    EXPECT_EQ(e.option(), "output_prefix");
    EXPECT_NE(std::string(e.what()).find("is a file"), std::string::npos) << e.what();
  }
  o.output_prefix = (dir / "new" / "deeper" / "run-").string();
  EXPECT_NO_THROW(o.validate_settings());
  EXPECT_FALSE(std::filesystem::exists(dir / "new"));  // the check makes nothing
  EXPECT_EQ(kprof::make_output_prefix(o), o.output_prefix);
  EXPECT_TRUE(std::filesystem::is_directory(dir / "new" / "deeper"));
  std::filesystem::remove_all(dir);
}

TEST(Options, AnOutputPrefixWithANulIsRejected) {
  kprof::Options o;
  o.output_prefix = std::string("out/a") + '\0' + "b/";
  try {
    o.validate_settings();
    ADD_FAILURE() << "no OptionError";
  } catch (const kprof::OptionError& e) {
    EXPECT_EQ(e.option(), "output_prefix");
    EXPECT_EQ(e.valid(), "a path prefix without NUL characters");
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

// --- the option table ------------------------------------------------------------------------

TEST(OptionTable, NamesAreDistinctAndEveryRowIsDocumented) {
  std::set<std::string> names;
  for_each_row(kOptionTable, [&](const auto& row) {
    EXPECT_TRUE(names.insert(std::string(row.name)).second) << row.name;
    EXPECT_FALSE(row.doc.empty()) << row.name;
  });
  EXPECT_TRUE(names.count("runs") && names.count("combine_kernel_metrics") &&
              names.count("ignore_kernel_list") && names.count("throttle_threshold"));
}

TEST(OptionTable, SetOptionReadsTheTextForm) {
  Options o;
  set_option(o, "runs", "5");
  set_option(o, "replay_mode", "range");
  set_option(o, "thermal_wait", "12");
  set_option(o, "metrics", " dram__bytes_read.sum,, set:memory ");
  set_option(o, "per_kernel", "true");
  set_option(o, "throttle_threshold", "0.5");
  set_option(o, "combine_kernel_metrics", "max");
  set_option(o, "normalize_against", "base");
  EXPECT_EQ(o.runs, 5);
  EXPECT_FALSE(o.stopping);
  EXPECT_EQ(o.replay_mode, ReplayMode::range);
  EXPECT_EQ(o.thermal.wait, 12);
  EXPECT_EQ(o.metrics, (std::vector<std::string>{"dram__bytes_read.sum", "set:memory"}));
  EXPECT_TRUE(o.per_kernel);
  EXPECT_DOUBLE_EQ(o.throttle_threshold, 0.5);
  EXPECT_EQ(o.combine, CombineKind::max);
  EXPECT_EQ(o.normalize_against, "base");
  set_option(o, "runs", "auto");
  ASSERT_TRUE(o.stopping);
  EXPECT_EQ(o.stopping->max_runs, StoppingRule{}.max_runs);
  set_option(o, "thermal_wait", "none");
  EXPECT_FALSE(o.thermal.wait);
}

TEST(OptionTable, BadTextNamesTheOptionTheTextAndWhatIsValid) {
  Options o;
  try {
    set_option(o, "runs", "many");
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "runs");
    EXPECT_EQ(e.value(), "'many'");
    EXPECT_NE(e.valid().find("an integer >= 1"), std::string::npos) << e.valid();
  }
  try {
    set_option(o, "replay_mode", "app");
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.valid(), "'auto', 'kernel', 'range' or 'application'");
  }
  try {
    set_option(o, "runz", "3");
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "option");
    EXPECT_EQ(e.value(), "'runz'");
    EXPECT_NE(e.valid().find("'runs'"), std::string::npos) << e.valid();
  }
  EXPECT_THROW(set_option(o, "derive_metric", "tflops"), OptionError);  // a function, in code
  EXPECT_THROW(set_option(o, "per_kernel", "yes"), OptionError);
  EXPECT_THROW(set_option(o, "thermal_timeout", "1.5"), OptionError);
}

TEST(OptionTable, EachRowsRuleNamesItsOption) {
  Options timeout;
  timeout.thermal.timeout_s = 0;
  Options device;
  device.thermal.device = -1;
  Options throttle;
  throttle.throttle_threshold = 1.5;
  Options ignore;
  ignore.ignore_kernels = {""};
  Options custom;
  custom.combine = CombineKind::custom;  // without a function
  const std::vector<std::pair<const Options*, std::string>> cases{
      {&timeout, "thermal_timeout"},
      {&device, "thermal_device"},
      {&throttle, "throttle_threshold"},
      {&ignore, "ignore_kernel_list"},
      {&custom, "combine_kernel_metrics"}};
  for (const auto& [options, name] : cases) {
    try {
      options->validate();
      ADD_FAILURE() << name << ": no error";
    } catch (const OptionError& e) {
      EXPECT_EQ(e.option(), name);
    }
  }
}

TEST(OptionTable, ToStringShowsEveryOption) {
  Options o;
  o.runs = 4;
  const std::string text = to_string(o);
  EXPECT_NE(text.find("runs=4, metrics=['gpu__time_duration.sum'], cache_control='all'"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("verbosity=3"), std::string::npos) << text;
  EXPECT_NE(text.find("throttle_threshold=0.75"), std::string::npos) << text;
  o.stopping = StoppingRule{};
  EXPECT_NE(to_string(o).find("runs='auto' (95% interval within 0.01 of the mean, 5..100 runs)"),
            std::string::npos)
      << to_string(o);
}

TEST(OptionTable, OutputPrefixIsATemporaryFolderByDefault) {
  namespace fs = std::filesystem;
  const std::string made = make_output_prefix(Options{});
  ASSERT_EQ(made.back(), '/');
  EXPECT_TRUE(fs::is_directory(made)) << made;
  EXPECT_EQ(fs::path(made).parent_path().filename().string().rfind("kprof_", 0), 0u) << made;
  Options given;
  given.output_prefix = made + "sub/run1-";
  EXPECT_EQ(make_output_prefix(given), given.output_prefix);
  EXPECT_TRUE(fs::is_directory(made + "sub"));
  fs::remove_all(made);
}
