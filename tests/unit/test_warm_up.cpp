// Warm-up calls before the profile, and the note when a config's first run launched other
// kernels than its second (compilation, autotuning), on the scripted backend.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/measure/device_probe.hpp"
#include "core/measure/engine.hpp"
#include "core/measure/warm_up.hpp"
#include "core/results/aggregate.hpp"
#include "core/say.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "kprof/layout.hpp"
#include "kprof/log.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using kprof::testing::ScriptedBackend;

namespace {

Options quiet(int runs, int warmup) {
  Options o;
  o.runs = runs;
  o.warmup = warmup;
  o.verbosity = Verbosity::silent;
  return o;
}

// A GPU whose reading takes 2 ms of the scripted clock and is logged in `events`.
class ScriptedDevice : public detail::DeviceProbe {
 public:
  ScriptedDevice(double* clock, std::vector<std::string>* events)
      : clock_(clock), events_(events) {}
  std::string unavailable() const override { return ""; }
  detail::DeviceReading read() override {
    events_->push_back("read");
    *clock_ += 0.002;
    return {};
  }
  std::optional<int> margin_c() override { return 40; }
  std::optional<int> temperature_c() override { return 50; }

 private:
  double* clock_;
  std::vector<std::string>* events_;
};

// A clock and a GPU queue: a call queues kernels (`queued` seconds of them), wait_for_gpu runs
// them to the end on the clock and counts the waits.
struct QueuedGpu {
  double clock = 0, queued = 0;
  int waits = 0;
  detail::SweepServices services() {
    detail::SweepServices s;
    s.now_s = [this] { return clock; };
    s.wait_for_gpu = [this] {
      ++waits;
      clock += queued;
      queued = 0;
    };
    return s;
  }
};

// What kprof logs while `fn` runs.
template <class Fn>
std::vector<std::string> logged(Fn fn) {
  std::vector<std::string> lines;
  set_log_sink([&](std::string_view line) { lines.emplace_back(line); });
  try {
    fn();
  } catch (...) {
    set_log_sink(nullptr);
    throw;
  }
  set_log_sink(nullptr);
  return lines;
}

}  // namespace

TEST(WarmUp, EachConfigIsCalledWarmupTimesBeforeAnyRunAndMeasuredNowhere) {
  ScriptedBackend gpu;
  std::vector<std::pair<std::size_t, int>> calls;
  const Results r =
      detail::run_sweep(gpu, quiet(2, 2), Sweep().axis("n", {1, 2}), [&](std::size_t c, int run) {
        calls.emplace_back(c, run);
        Annotation a("k");
        gpu.launch("kern", 100.0 * (c + 1));
      });
  const std::vector<std::pair<std::size_t, int>> expected{{0, -1}, {0, -1}, {1, -1}, {1, -1},
                                                          {0, 0},  {0, 1},  {1, 0},  {1, 1}};
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(r.records().size(), 4u);  // the warm-up calls' launches are in no record
  EXPECT_EQ(r.rows().front().num_runs, 2u);
}

TEST(WarmUp, AWarmUpCallThatRaisesNamesTheCall) {
  ScriptedBackend gpu;
  try {
    detail::run_sweep(gpu, quiet(1, 2), Sweep().axis("n", {1, 2}), [&](std::size_t c, int run) {
      if (c == 1 && run < 0) throw std::runtime_error("compiler failed");
    });
    FAIL() << "no UserFunctionError";
  } catch (const UserFunctionError& e) {
    EXPECT_NE(std::string(e.what()).find("config 2/2 (n=2), warm-up call 1/2: compiler failed"),
              std::string::npos)
        << e.what();
    EXPECT_FALSE(e.partial_results());  // nothing was measured yet
  }
}

// What a binding may throw that is no std::exception is the user's failure too, named.
TEST(WarmUp, AWarmUpCallThatThrowsAnythingNamesTheCall) {
  ScriptedBackend gpu;
  try {
    detail::run_sweep(gpu, quiet(1, 1), Sweep(), [&](std::size_t, int run) {
      if (run < 0) throw 42;
    });
    FAIL() << "no UserFunctionError";
  } catch (const UserFunctionError& e) {
    EXPECT_NE(std::string(e.what()).find("warm-up call 1/1: an exception of unknown type"),
              std::string::npos)
        << e.what();
  }
}

TEST(WarmUp, AFirstRunWithOtherKernelsIsNotedWithTheOptionThatHelps) {
  ScriptedBackend gpu;
  Options o = quiet(3, 0);
  o.verbosity = Verbosity::info;
  o.combine = CombineKind::sum;
  const auto lines = logged([&] {
    detail::run_sweep(gpu, o, Sweep().axis("n", {1, 2}), [&](std::size_t, int run) {
      Annotation a("k");
      if (run == 0)  // an autotuner trying two configurations first
        for (int i = 0; i < 2; ++i) gpu.launch("kern_try", 50.0);
      gpu.launch("kern", 100.0);
    });
  });
  std::string note;
  for (const auto& line : lines)
    if (line.find("first run launched") != std::string::npos) note = line;
  EXPECT_NE(note.find("config 1/2 (n=1): its first run launched other kernels than its second "
                      "(3 kernel launch(es) of 2 kernel(s), then 1 kernel launch(es) of 1 "
                      "kernel(s)), and so did 1 other config(s)"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("warmup=1"), std::string::npos) << note;
}

TEST(WarmUp, TheSameKernelsInEveryRunNeedNoNote) {
  std::vector<Record> records;
  for (int run = 0; run < 3; ++run)
    for (const char* k : {"a", "b"})
      records.push_back({0, run, "region", k, 0, std::string(kDurationMetric), 1.0, "ns"});
  EXPECT_EQ(detail::first_run_note(records, Sweep(), Options{}), "");
  records.push_back({0, 0, "region", "b", 1, std::string(kDurationMetric), 1.0, "ns"});
  const std::string note = detail::first_run_note(records, Sweep(), Options{});
  EXPECT_NE(note.find("config 1/1: its first run launched other kernels"), std::string::npos)
      << note;
}

// The warm-up calls time the function unprofiled (the last of them: the first compiles); what
// the profiled runs take beyond that is the overhead, per row and for the session.
TEST(WarmUp, TheOverheadIsTheProfiledRunsLessTheLastWarmUpCall) {
  ScriptedBackend gpu;
  double clock = 0;
  detail::SweepServices services;
  services.now_s = [&clock] { return clock; };
  Options o = quiet(4, 2);
  o.verbosity = Verbosity::info;
  std::vector<std::string> lines;
  const Results r = [&] {
    std::optional<Results> out;
    lines = logged([&] {
      out.emplace(detail::run_sweep(
          gpu, o, Sweep().axis("n", {1, 2}),
          [&](std::size_t c, int run) {
            Annotation a("k");
            gpu.launch("kern", 100.0);
            // Warm-up: a first call of 1 s (compiling), then 10 ms; profiled runs 13 ms (config
            // 0) and 14 ms (config 1).
            clock += run < 0 ? (clock < 1 ? 1.0 : 0.010) : 0.013 + 0.001 * c;
          },
          {}, services));
    });
    return *out;
  }();
  ASSERT_EQ(r.config_info().size(), 2u);
  EXPECT_NEAR(r.config_info()[0].unprofiled_seconds, 0.010, 1e-9);
  EXPECT_NEAR(r.rows()[0].overhead_seconds, 0.003, 1e-9);
  EXPECT_NEAR(r.rows()[1].overhead_seconds, 0.004, 1e-9);
  EXPECT_NEAR(r.session().overhead_seconds_per_run, 0.0035, 1e-9);
  EXPECT_NEAR(r.session().unprofiled_seconds_per_run, 0.010, 1e-9);
  bool said = false;
  for (const auto& line : lines)
    said = said || line == "[kprof] profiling added 3.5 ms per run (35% of 10 ms unprofiled)";
  EXPECT_TRUE(said);
  EXPECT_EQ(kprof::overhead_note(r.session()),
            "profiling added 3.5 ms per run (35% of 10 ms unprofiled)");
}

// A GPU function returns once its kernels are queued: both sides of the comparison wait for
// them (wait_for_gpu), or an unprofiled call that waits behind queued work and profiled runs
// that do not would tell a negative overhead (as the H200 did: -38.9 us per run of the seed
// sweep).
TEST(WarmUp, BothSidesOfTheOverheadWaitForTheKernels) {
  ScriptedBackend gpu;
  QueuedGpu q;
  // Each call queues 8 ms of kernels in 0.1 ms; a profiled run's launches take 0.2 ms more.
  const Results r = detail::run_sweep(
      gpu, quiet(3, 2), Sweep(),
      [&](std::size_t, int run) {
        Annotation a("k");
        gpu.launch("kern", 100.0);
        q.clock += run < 0 ? 0.0001 : 0.0003;
        q.queued += 0.008;
      },
      {}, q.services());
  EXPECT_NEAR(r.config_info()[0].unprofiled_seconds, 0.0081, 1e-9);
  EXPECT_NEAR(r.rows()[0].overhead_seconds, 0.0002, 1e-9);
  EXPECT_EQ(q.waits, 2 + 3);  // after each warm-up call and each run
}

// The unprofiled calls come after the backend stopped and before it gives back what it kept for
// them (the counter backends' idle range profiler, whose disable slows the launches after it).
TEST(WarmUp, TheUnprofiledCallsComeBetweenTheBackendsStopAndItsRelease) {
  ScriptedBackend gpu;
  std::vector<std::pair<int, int>> at_unprofiled;  // (stops, releases) at each unprofiled call
  detail::run_sweep(gpu, quiet(2, 0), Sweep(), [&](std::size_t, int run) {
    if (run < 0) at_unprofiled.emplace_back(gpu.stops, gpu.releases);
    Annotation a("k");
    gpu.launch("kern", 100.0);
  });
  EXPECT_EQ(at_unprofiled, (std::vector<std::pair<int, int>>{{1, 0}}));
  EXPECT_GE(gpu.releases, 1);  // safe to call twice: after the calls, and on the way out
}

TEST(WarmUp, WhatTheBackendKeptIsGivenBackWhenTheProfileFails) {
  ScriptedBackend gpu;
  EXPECT_THROW(detail::run_sweep(gpu, quiet(2, 0), Sweep(),
                                 [&](std::size_t, int run) {
                                   Annotation a("k");
                                   gpu.launch("kern", 100.0);
                                   if (run == 1) throw std::runtime_error("boom");
                                 }),
               UserFunctionError);
  EXPECT_EQ(gpu.stops, 1);
  EXPECT_GE(gpu.releases, 1);
}

TEST(WarmUp, WithoutDisclosureOneWarmUpCallWaitsForNoRun) {
  ScriptedBackend gpu;
  int waits = 0;
  detail::SweepServices services;
  services.wait_for_gpu = [&] { ++waits; };
  Options o = quiet(3, 1);
  o.disclose_overhead = false;
  detail::run_sweep(
      gpu, o, Sweep(),
      [&](std::size_t, int) {
        Annotation a("k");
        gpu.launch("kern", 100.0);
      },
      {}, services);
  EXPECT_EQ(waits, 1);  // the warm-up call's kernels are done before the runs start
}

TEST(WarmUp, WithoutDisclosureOneWarmUpCallTellsNoOverhead) {
  ScriptedBackend gpu;
  Options o = quiet(2, 1);
  o.disclose_overhead = false;
  int calls = 0;
  const Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) {
    ++calls;
    Annotation a("k");
    gpu.launch("kern", 100.0);
  });
  EXPECT_EQ(calls, 1 + 2);  // warmup + runs, nothing after
  EXPECT_TRUE(std::isnan(r.rows()[0].overhead_seconds));
  EXPECT_TRUE(std::isnan(r.session().overhead_seconds_per_run));
  EXPECT_EQ(kprof::overhead_note(r.session()), "");
}

// By default each config gets one unprofiled call after the profile (not measured: no record,
// no run), timed until its kernels are done as the runs are.
TEST(WarmUp, ByDefaultOneUnprofiledCallPerConfigFollowsTheProfile) {
  ScriptedBackend gpu;
  QueuedGpu q;
  std::vector<std::pair<std::size_t, int>> calls;
  Options o = quiet(2, 0);
  ASSERT_TRUE(o.disclose_overhead);
  const Results r = detail::run_sweep(
      gpu, o, Sweep().axis("n", {1, 2}),
      [&](std::size_t c, int run) {
        calls.emplace_back(c, run);
        Annotation a("k");
        gpu.launch("kern", 100.0);
        q.clock += run < 0 ? 0.001 : 0.002 + 0.001 * c;  // profiled: 1 or 2 ms more
        q.queued += 0.005;
      },
      {}, q.services());
  using Call = std::pair<std::size_t, int>;
  EXPECT_EQ(calls, (std::vector<Call>{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, -1}, {1, -1}}));
  EXPECT_EQ(q.waits, 4 + 2);
  EXPECT_EQ(r.records().size(), 4u);
  ASSERT_EQ(r.config_info().size(), 2u);
  EXPECT_NEAR(r.config_info()[1].unprofiled_seconds, 0.006, 1e-9);
  EXPECT_NEAR(r.rows()[0].overhead_seconds, 0.001, 1e-9);
  EXPECT_NEAR(r.rows()[1].overhead_seconds, 0.002, 1e-9);
  EXPECT_NEAR(r.session().overhead_seconds_per_run, 0.0015, 1e-9);
}

// The measurements are complete when the unprofiled call fails: the profile returns them,
// warns and tells no overhead; no later config is called again.
TEST(WarmUp, AFailingUnprofiledCallCostsTheDisclosureNotTheProfile) {
  ScriptedBackend gpu;
  std::vector<std::pair<std::size_t, int>> calls;
  Options o = quiet(2, 0);
  o.verbosity = Verbosity::info;
  std::optional<Results> r;
  const std::vector<std::string> lines = logged([&] {
    r.emplace(detail::run_sweep(gpu, o, Sweep().axis("n", {1, 2, 3}), [&](std::size_t c, int run) {
      calls.emplace_back(c, run);
      if (run < 0 && c == 1) throw std::runtime_error("out of memory");
      Annotation a("k");
      gpu.launch("kern", 100.0);
    }));
  });
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->records().size(), 6u);
  EXPECT_EQ(calls.back(), (std::pair<std::size_t, int>{1, -1}));  // config 3 not called again
  EXPECT_FALSE(std::isnan(r->config_info()[0].unprofiled_seconds));
  EXPECT_TRUE(std::isnan(r->config_info()[1].unprofiled_seconds));
  EXPECT_TRUE(std::isnan(r->rows()[1].overhead_seconds));
  bool warned = false;
  for (const auto& line : lines)
    warned =
        warned || line.find(
                      "warning: the benchmark function failed in config 2/3 (n=2), its "
                      "unprofiled call after the profile (out of memory)") != std::string::npos;
  EXPECT_TRUE(warned);
}

// A fault in the unprofiled calls is the process's, as in the runs: a GpuFaultError with the
// measurements.
TEST(WarmUp, AGpuFaultInTheUnprofiledCallsIsRaisedWithTheMeasurements) {
  ScriptedBackend gpu;
  bool faulted = false;
  detail::SweepServices services;
  services.gpu_fault = [&] { return faulted ? std::string("an illegal address") : std::string(); };
  try {
    detail::run_sweep(
        gpu, quiet(2, 0), Sweep(),
        [&](std::size_t, int run) {
          faulted = faulted || run < 0;
          Annotation a("k");
          gpu.launch("kern", 100.0);
        },
        {}, services);
    FAIL() << "the fault was not raised";
  } catch (const GpuFaultError& e) {
    EXPECT_NE(std::string(e.what()).find("unprofiled calls after the profile (an illegal address)"),
              std::string::npos)
        << e.what();
    ASSERT_NE(e.partial_results(), nullptr);
    EXPECT_EQ(e.partial_results()->records().size(), 2u);
  }
}

// Without a warm-up call the first run compiles and loads: the overhead leaves it out when a
// later run is there.
TEST(WarmUp, WithoutWarmUpTheFirstRunIsLeftOutOfTheOverhead) {
  ScriptedBackend gpu;
  QueuedGpu q;
  const Results r = detail::run_sweep(
      gpu, quiet(3, 0), Sweep(),
      [&](std::size_t, int run) {
        Annotation a("k");
        gpu.launch("kern", 100.0);
        q.clock += run == 0 ? 0.050 : run > 0 ? 0.0012 : 0.001;  // 50 ms first, then 1.2 ms
      },
      {}, q.services());
  EXPECT_NEAR(r.rows()[0].overhead_seconds, 0.0002, 1e-9);
  EXPECT_NEAR(r.session().overhead_seconds_per_run, 0.0002, 1e-9);
  EXPECT_EQ(detail::profiled_seconds_per_run({{0, 5.0}}, 0), 5.0);            // one run: it counts
  EXPECT_EQ(detail::profiled_seconds_per_run({{0, 5.0}, {1, 1.0}}, 1), 3.0);  // warmed up
}

// The GPU is read as a run's call returns, before the wait for its kernels: a reading after the
// wait would find an idle GPU.
TEST(WarmUp, TheGpuIsReadBeforeTheWaitForTheRunsKernels) {
  ScriptedBackend gpu;
  double clock = 0;
  std::vector<std::string> events;
  detail::SweepServices services;
  services.now_s = [&clock] { return clock; };
  services.wait_for_gpu = [&] {
    events.push_back("wait");
    clock += 0.004;
  };
  ScriptedDevice device(&clock, &events);
  services.device = &device;
  Options o = quiet(1, 0);
  o.disclose_overhead = true;
  const Results r = detail::run_sweep(
      gpu, o, Sweep(),
      [&](std::size_t, int run) {
        Annotation a("k");
        gpu.launch("kern", 100.0);
        if (run >= 0) events.push_back("run");
        clock += 0.001;
      },
      {}, services);
  EXPECT_EQ(events, (std::vector<std::string>{"run", "read", "wait", "wait"}));
  ASSERT_EQ(r.run_info().size(), 1u);
  // The 1 ms call, the 2 ms reading (profiling's) and the 4 ms wait: to the kernels' end.
  EXPECT_NEAR(r.run_info()[0].seconds, 0.007, 1e-9);
}

TEST(ConfigLines, TheFirstTheLastAndOneEveryFewSeconds) {
  using kprof::config_line_due;
  EXPECT_TRUE(config_line_due(0, 1000, 0.0, -1e9));
  EXPECT_FALSE(config_line_due(1, 1000, 0.1, 0.0));
  EXPECT_TRUE(config_line_due(50, 1000, 5.0, 0.0));
  EXPECT_TRUE(config_line_due(999, 1000, 99.9, 99.8));
  int lines = 0;
  double last = -1e9;
  for (std::size_t c = 0; c < 1000; ++c)
    if (config_line_due(c, 1000, 0.1 * (c + 1), last)) {
      ++lines;
      last = 0.1 * (c + 1);
    }
  EXPECT_GE(lines, 20);
  EXPECT_LE(lines, 22);
}
