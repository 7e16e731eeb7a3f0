// The stopping rule (runs="auto"), tested on the engine with the scripted backend: the rule's
// decisions, its checkpoints (how often the backend collects), its reasons in the results.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/measure/engine.hpp"
#include "core/measure/stopping.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using kprof::testing::ScriptedBackend;

namespace {

Options auto_runs(StoppingRule rule = {}) {
  Options o;
  o.verbosity = Verbosity::silent;
  o.thermal_mode = ThermalMode::off;
  o.stopping = rule;
  return o;
}

const Row& row(const Results& r, const std::string& annotation, std::size_t config) {
  for (const auto& x : r.rows())
    if (x.annotation == annotation && x.config == config) return x;
  throw std::runtime_error("no row " + annotation);
}

// A duration that varies around `mean` by +/- `spread`, deterministic: a pseudo-random
// sequence with a known spread.
double noisy(double mean, double spread, int run) {
  static const double pattern[] = {0.3, -0.9, 0.7, -0.2, 1.0, -0.6, 0.1, -1.0, 0.5, -0.4};
  return mean + spread * pattern[run % 10];
}

double half_width_share(const Row& r) { return 0.5 * (r.ci95_upper - r.ci95_lower) / r.mean; }

}  // namespace

TEST(Stopping, ASteadyKernelStopsAtMinRunsWithOneCollect) {
  ScriptedBackend gpu;
  int calls = 0;
  Results r = detail::run_sweep(gpu, auto_runs(), Sweep(), [&](std::size_t, int) {
    ++calls;
    Annotation a("k");
    gpu.launch("kern", 1000);
  });
  EXPECT_EQ(calls, 5 + 1);  // five runs, one unprofiled call
  EXPECT_EQ(gpu.collects, 1);
  ASSERT_EQ(r.config_info().size(), 1u);
  EXPECT_EQ(r.config_info()[0].runs, 5);
  EXPECT_EQ(r.config_info()[0].stopped_by, "precision");
  EXPECT_EQ(row(r, "k", 0).runs_done, 5);
  EXPECT_EQ(row(r, "k", 0).stopped_by, "precision");
  EXPECT_EQ(r.session().runs, 0);
  EXPECT_DOUBLE_EQ(r.session().stop_rel_half_width, 0.01);
  EXPECT_EQ(r.session().stop_min_runs, 5);
  EXPECT_EQ(r.session().stop_max_runs, 100);
}

TEST(Stopping, ANoisyKernelRunsUntilTheIntervalIsTightEnough) {
  ScriptedBackend gpu;
  Results r = detail::run_sweep(gpu, auto_runs(), Sweep(), [&](std::size_t, int run) {
    Annotation a("k");
    gpu.launch("kern", noisy(1000, 30, run));  // ~2% spread: needs a few dozen runs
  });
  const Row& k = row(r, "k", 0);
  EXPECT_EQ(k.stopped_by, "precision");
  EXPECT_GT(k.runs_done, 5);
  EXPECT_LT(k.runs_done, 100);
  EXPECT_LE(half_width_share(k), 0.01);
  // Collected at checkpoints, not per run: O(log(max / min)) collects.
  EXPECT_LE(gpu.collects, 8);
  EXPECT_GE(gpu.collects, 2);
  EXPECT_EQ(static_cast<int>(k.num_runs), k.runs_done);
}

TEST(Stopping, AKernelThatNeverSettlesStopsAtMaxRuns) {
  ScriptedBackend gpu;
  StoppingRule rule;
  rule.max_runs = 20;
  Results r = detail::run_sweep(gpu, auto_runs(rule), Sweep(), [&](std::size_t, int run) {
    Annotation a("k");
    gpu.launch("kern", run % 2 == 0 ? 500 : 1500);
  });
  EXPECT_EQ(row(r, "k", 0).runs_done, 20);
  EXPECT_EQ(row(r, "k", 0).stopped_by, "max_runs");
  EXPECT_LE(gpu.collects, 5);  // 5, 10, 20
}

TEST(Stopping, TheTimeBudgetStopsAConfigAndExcludesNothingButPauses) {
  ScriptedBackend gpu;
  double now = 0;
  detail::SweepServices services;
  services.now_s = [&] { return now; };
  StoppingRule rule;
  rule.time_budget_s = 3.5;
  Results r = detail::run_sweep(
      gpu, auto_runs(rule), Sweep().axis("n", {1, 2}),
      [&](std::size_t, int run) {
        now += 1.0;  // each run takes a second
        Annotation a("k");
        gpu.launch("kern", run % 2 == 0 ? 500 : 1500);
      },
      {}, services);
  for (std::size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(r.config_info()[c].runs, 4);
    EXPECT_EQ(r.config_info()[c].stopped_by, "time_budget");
    EXPECT_DOUBLE_EQ(r.config_info()[c].seconds, 4.0);
    EXPECT_EQ(row(r, "k", c).stopped_by, "time_budget");
  }
  ASSERT_EQ(r.run_info().size(), 8u);
  EXPECT_DOUBLE_EQ(r.run_info()[0].seconds, 1.0);
}

TEST(Stopping, EveryRowOfTheConfigMustMeetTheTarget) {
  ScriptedBackend gpu;
  Results r = detail::run_sweep(gpu, auto_runs(), Sweep(), [&](std::size_t, int run) {
    {
      Annotation a("steady");
      gpu.launch("s", 1000);
    }
    Annotation b("noisy");
    gpu.launch("n", noisy(1000, 30, run));
  });
  EXPECT_GT(row(r, "steady", 0).runs_done, 5);  // it waited for "noisy"
  EXPECT_LE(half_width_share(row(r, "noisy", 0)), 0.01);
}

TEST(Stopping, ConfigsStopEachOnTheirOwn) {
  ScriptedBackend gpu;
  Results r =
      detail::run_sweep(gpu, auto_runs(), Sweep().axis("n", {1, 2}), [&](std::size_t c, int run) {
        Annotation a("k");
        gpu.launch("kern", c == 0 ? 1000 : noisy(1000, 30, run));
      });
  EXPECT_EQ(row(r, "k", 0).runs_done, 5);
  EXPECT_GT(row(r, "k", 1).runs_done, 5);
}

TEST(Stopping, GroupsWhoseRunsAllFailAreLeftOut) {
  ScriptedBackend gpu;
  Results r = detail::run_sweep(gpu, auto_runs(), Sweep(), [&](std::size_t, int) {
    {
      Annotation a("k");
      gpu.launch("kern", 1000);
    }
    auto h = open_annotation("always_fails");
    close_annotation(h, /*failed=*/true);
  });
  EXPECT_EQ(row(r, "k", 0).runs_done, 5);
  EXPECT_EQ(row(r, "k", 0).stopped_by, "precision");
  EXPECT_EQ(row(r, "always_fails", 0).num_runs, 0u);
}

TEST(Stopping, PerKernelModeJudgesEveryKernel) {
  ScriptedBackend gpu;
  Options o = auto_runs();
  o.per_kernel = true;
  Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int run) {
    Annotation a("k");
    gpu.launch("steady", 1000);
    gpu.launch("noisy", noisy(50, 3, run));  // 6% of 50: the sum would hide it
  });
  for (const Row& x : r.rows()) EXPECT_LE(half_width_share(x), 0.01) << x.kernel;
}

TEST(Stopping, FixedRunsSayRunsStoppedThem) {
  ScriptedBackend gpu;
  Options o;
  o.runs = 3;
  o.verbosity = Verbosity::silent;
  o.thermal_mode = ThermalMode::off;
  Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int run) {
    Annotation a("k");
    gpu.launch("kern", 100 + run);
  });
  EXPECT_EQ(row(r, "k", 0).runs_done, 3);
  EXPECT_EQ(row(r, "k", 0).stopped_by, "runs");
  EXPECT_TRUE(std::isnan(r.session().stop_rel_half_width));
  EXPECT_EQ(gpu.collects, 1);
}

TEST(Stopping, ProgressAndConfigEndHooksSeeTheRule) {
  ScriptedBackend gpu;
  detail::SweepHooks hooks;
  std::vector<detail::Progress> progress;
  std::vector<ConfigInfo> ends;
  hooks.progress = [&](const detail::Progress& p) { progress.push_back(p); };
  hooks.config_end = [&](const ConfigInfo& c) { ends.push_back(c); };
  detail::run_sweep(
      gpu, auto_runs(), Sweep(),
      [&](std::size_t, int) {
        Annotation a("k");
        gpu.launch("kern", 1);
      },
      hooks);
  ASSERT_EQ(progress.size(), 5u);
  EXPECT_TRUE(progress[0].adaptive);
  EXPECT_EQ(progress[0].runs, 100);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].runs, 5);
  EXPECT_EQ(ends[0].stopped_by, "precision");
}

TEST(Stopping, AFailureMidConfigKeepsWhatRanAndSaysError) {
  ScriptedBackend gpu;
  try {
    detail::run_sweep(gpu, auto_runs(), Sweep().axis("n", {1, 2}), [&](std::size_t c, int run) {
      Annotation a("k");
      gpu.launch("kern", 1000);
      if (c == 1 && run == 2) throw std::runtime_error("boom");
    });
    FAIL() << "no error";
  } catch (const UserFunctionError& e) {
    ASSERT_TRUE(e.partial_results());
    const auto& configs = e.partial_results()->config_info();
    ASSERT_EQ(configs.size(), 2u);
    EXPECT_EQ(configs[0].stopped_by, "precision");
    EXPECT_EQ(configs[1].stopped_by, "error");
    EXPECT_EQ(configs[1].runs, 2);
    EXPECT_EQ(row(*e.partial_results(), "k", 1).num_runs, 2u);
  }
}

TEST(StoppingCheck, PredictsTheRunsNeededAndNamesTheWidestGroup) {
  std::vector<Record> records;
  for (int run = 0; run < 5; ++run) {
    records.push_back(
        {0, run, "wide", "k", 0, "gpu__time_duration.sum", noisy(1000, 100, run), "ns"});
    records.push_back({0, run, "narrow", "k", 0, "gpu__time_duration.sum", 1000, "ns"});
  }
  Options o;
  const auto check = detail::check_precision(records, o, 0.01);
  EXPECT_FALSE(check.met);
  EXPECT_EQ(check.worst, "wide, gpu__time_duration.sum");
  EXPECT_GT(check.worst_half_width, 0.01);
  EXPECT_GT(check.runs_needed, 5);
}

TEST(StoppingCheck, OneValidRunIsNotEnough) {
  std::vector<Record> records{{0, 0, "k", "k", 0, "gpu__time_duration.sum", 1000, "ns"},
                              {0, 1, "k", "k", 0, "gpu__time_duration.sum", NAN, "ns"}};
  const auto check = detail::check_precision(records, Options{}, 0.01);
  EXPECT_FALSE(check.met);
  EXPECT_GT(check.runs_needed, 2);
}

TEST(StoppingCheck, CheckpointsGrowGeometricallyWithinTheirBounds) {
  StoppingRule rule;                                     // max 100
  EXPECT_EQ(detail::next_checkpoint(5, 6, rule), 6);     // the prediction, at least +1
  EXPECT_EQ(detail::next_checkpoint(5, 500, rule), 10);  // at most doubling
  EXPECT_EQ(detail::next_checkpoint(8, 9, rule), 10);    // at least +25%
  EXPECT_EQ(detail::next_checkpoint(40, 55, rule), 55);
  EXPECT_EQ(detail::next_checkpoint(60, 1000, rule), 100);  // never beyond max_runs
}

TEST(StoppingOptions, TheRuleIsValidated) {
  auto expect_option = [](StoppingRule rule, const std::string& option) {
    Options o;
    o.stopping = rule;
    try {
      o.validate();
      FAIL() << "no error for " << option;
    } catch (const OptionError& e) {
      EXPECT_EQ(e.option(), option);
    }
  };
  StoppingRule r;
  r.rel_half_width = 0;
  expect_option(r, "runs.rel_half_width");
  r = {};
  r.rel_half_width = NAN;
  expect_option(r, "runs.rel_half_width");
  r = {};
  r.min_runs = 1;
  expect_option(r, "runs.min_runs");
  r = {};
  r.max_runs = 4;
  expect_option(r, "runs.max_runs");
  r = {};
  r.time_budget_s = -1;
  expect_option(r, "runs.time_budget_s");
  Options ok;
  ok.stopping = StoppingRule{};
  EXPECT_NO_THROW(ok.validate());
}
