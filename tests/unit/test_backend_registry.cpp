// Every replay mode has the backend its source file registered, in a build with the GPU
// backend; a build without it has none and says so. Making a backend touches no GPU.
#include <gtest/gtest.h>

#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/measure/backend_registry.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"
#include "kprof/options.hpp"

using namespace kprof;

TEST(BackendRegistry, EveryReplayModeHasItsBackendInABuildWithCuda) {
  for (ReplayMode mode : {ReplayMode::kernel, ReplayMode::range, ReplayMode::application}) {
    Options o;
    o.replay_mode = mode;
    o.metrics = {"dram__bytes_read.sum"};
    if (query_system().built_with_cuda) {
      EXPECT_NE(detail::make_registered_backend(o), nullptr) << to_string(mode);
    } else {
      EXPECT_THROW(detail::make_registered_backend(o), UnsupportedError) << to_string(mode);
    }
  }
}

TEST(BackendRegistry, AModeRegisteredTwiceKeepsItsFirstBackend) {
  static int made = 0;  // the registry outlives the test
  EXPECT_TRUE(detail::register_backend(ReplayMode::range, [](const Options&) {
    ++made;
    return std::unique_ptr<detail::Backend>();
  }));
  Options o;
  o.replay_mode = ReplayMode::range;
  if (query_system().built_with_cuda) {
    EXPECT_NE(detail::make_registered_backend(o), nullptr);  // range_replay.cpp's
    EXPECT_EQ(made, 0);
  } else {
    EXPECT_EQ(detail::make_registered_backend(o), nullptr);  // the test's, which makes none
    EXPECT_EQ(made, 1);
  }
}

namespace {

// The choice of replay_mode="auto" for `metrics` when the counters take `passes` passes; fails
// the test if the passes were asked for where they do not matter.
detail::ReplayChoice auto_choice(std::vector<std::string> metrics, int passes,
                                 bool passes_matter = true) {
  Options o;
  o.metrics = std::move(metrics);
  bool asked = false;
  const detail::ReplayChoice c = detail::chosen_replay_mode(o, [&] {
    asked = true;
    return passes;
  });
  EXPECT_EQ(asked, passes_matter);
  return c;
}

}  // namespace

TEST(ReplayChoice, AutoTakesApplicationReplayForSeveralPassesWithFlushes) {
  const auto c = auto_choice({"sm__throughput.avg.pct_of_peak_sustained_elapsed"}, 8);
  EXPECT_EQ(c.mode, ReplayMode::application);
  EXPECT_NE(c.why.find("8 passes"), std::string::npos) << c.why;
}

TEST(ReplayChoice, AutoTakesKernelReplayWhereItMeasuresAsWell) {
  EXPECT_EQ(auto_choice({"dram__bytes_read.sum"}, 1).mode, ReplayMode::kernel);
  EXPECT_EQ(auto_choice({std::string(kDurationMetric)}, 1, false).mode, ReplayMode::kernel);
  EXPECT_EQ(auto_choice({"set:launch"}, 1, false).mode, ReplayMode::kernel);
  Options warm;
  warm.metrics = {"sm__throughput.avg.pct_of_peak_sustained_elapsed"};
  warm.cache_control = CacheControl::none;
  EXPECT_EQ(detail::chosen_replay_mode(warm, [] { return 8; }).mode, ReplayMode::kernel);
  Options rule = warm;
  rule.cache_control = CacheControl::all;
  rule.stopping = StoppingRule{};
  const auto c = detail::chosen_replay_mode(rule, [] { return 8; });
  EXPECT_EQ(c.mode, ReplayMode::kernel);
  EXPECT_NE(c.why.find("stopping rule"), std::string::npos) << c.why;
}

TEST(ReplayChoice, AModeAskedForIsKeptWithoutAWord) {
  for (ReplayMode mode : {ReplayMode::kernel, ReplayMode::range, ReplayMode::application}) {
    Options o;
    o.replay_mode = mode;
    o.metrics = {"sm__throughput.avg.pct_of_peak_sustained_elapsed"};
    const auto c = detail::chosen_replay_mode(o, [] { return 8; });
    EXPECT_EQ(c.mode, mode);
    EXPECT_TRUE(c.why.empty());
  }
}

TEST(ReplayModes, EachModeHasOneRowAndItsNameComesFromIt) {
  ASSERT_EQ(std::size(kReplayModes), std::size(kReplayModeNames));
  for (const Choice<ReplayMode>& choice : kReplayModeNames) {
    EXPECT_EQ(traits_of(choice.value).mode, choice.value);
    EXPECT_EQ(traits_of(choice.value).name, choice.name);
    EXPECT_EQ(to_string(choice.value), choice.name);
  }
  EXPECT_TRUE(whole_regions("range"));
  for (const char* name : {"auto", "kernel", "application", "", "Range", "nsight-compute"})
    EXPECT_FALSE(whole_regions(name)) << name;
}

TEST(ReplayModes, WhatAModeCannotMeasureIsReadFromItsTraits) {
  for (const ReplayModeTraits& traits : kReplayModes) {
    Options ignoring;
    ignoring.replay_mode = traits.mode;
    ignoring.ignore_kernels = {"warm_up"};
    Options launch = ignoring;
    launch.ignore_kernels.clear();
    launch.metrics = {"launch__grid_size"};
    Options stopping = launch;
    stopping.metrics = {std::string(kDurationMetric)};
    stopping.stopping = StoppingRule{};
    if (traits.whole_region) {
      EXPECT_THROW(ignoring.validate(), OptionError) << traits.name;
      EXPECT_THROW(launch.validate(), OptionError) << traits.name;
    } else {
      EXPECT_NO_THROW(ignoring.validate()) << traits.name;
      EXPECT_NO_THROW(launch.validate()) << traits.name;
    }
    if (traits.fixed_runs)
      EXPECT_THROW(stopping.validate(), OptionError) << traits.name;
    else
      EXPECT_NO_THROW(stopping.validate()) << traits.name;
  }
}
