#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "core/measure/engine.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "kprof/profile.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using kprof::testing::quiet;
using kprof::testing::ScriptedBackend;

namespace {

const Row& row(const Results& r, const std::string& annotation, std::size_t config) {
  for (const auto& x : r.rows())
    if (x.annotation == annotation && x.config == config) return x;
  throw std::runtime_error("no row " + annotation);
}

}  // namespace

TEST(Engine, RunsConfigsTimesRunsInOrderAndAggregates) {
  ScriptedBackend gpu;
  Sweep sweep = Sweep().axis("n", {1, 2});
  std::vector<std::pair<std::size_t, int>> calls;
  Results r = detail::run_sweep(gpu, quiet(3), sweep, [&](std::size_t c, int run) {
    calls.emplace_back(c, run);
    Annotation a("k");
    gpu.launch("kern", 100.0 * (c + 1) + run);
  });
  // Then one unprofiled call per config, after the profile (disclose_overhead).
  std::vector<std::pair<std::size_t, int>> expected{{0, 0}, {0, 1}, {0, 2},  {1, 0},
                                                    {1, 1}, {1, 2}, {0, -1}, {1, -1}};
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(gpu.collects, 2);  // once per config, never per run
  EXPECT_EQ(gpu.stops, 1);
  ASSERT_EQ(r.records().size(), 6u);
  EXPECT_DOUBLE_EQ(row(r, "k", 0).mean, 101.0);
  EXPECT_DOUBLE_EQ(row(r, "k", 1).mean, 201.0);
  EXPECT_EQ(row(r, "k", 1).num_runs, 3u);
  EXPECT_EQ(r.session().runs, 3);
}

TEST(Engine, AnUnmeasuredCallOfEachConfigComesBeforeTheRuns) {
  ScriptedBackend gpu;
  gpu.unmeasured_call = true;  // as with counters in kernel replay: it sizes the sessions
  Sweep sweep = Sweep().axis("n", {1, 2});
  std::vector<std::pair<std::size_t, int>> calls;
  std::vector<std::pair<std::size_t, int>> observed;
  detail::SweepHooks hooks;
  hooks.run_end = [&](std::size_t c, int run) { observed.emplace_back(c, run); };
  Results r = detail::run_sweep(
      gpu, quiet(2), sweep,
      [&](std::size_t c, int run) {
        calls.emplace_back(c, run);
        Annotation a("k");
        Annotation b("inner");
        gpu.launch("kern", 100.0 * (c + 1) + run);
      },
      hooks);
  const std::vector<std::pair<std::size_t, int>> runs{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  std::vector<std::pair<std::size_t, int>> expected{{0, 0}, {1, 0}};
  expected.insert(expected.end(), runs.begin(), runs.end());
  expected.insert(expected.end(), {{0, -1}, {1, -1}});  // the unprofiled calls, after the profile
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(observed, runs);  // the unmeasured calls are no runs
  EXPECT_EQ(gpu.unmeasured_regions, (std::vector<std::size_t>{2, 2}));
  ASSERT_EQ(r.records().size(), 8u);  // their launches are in no record: 2 regions x 4 runs
  EXPECT_DOUBLE_EQ(row(r, "k/inner", 0).mean, 100.5);
  EXPECT_EQ(row(r, "k/inner", 0).num_runs, 2u);
}

// A config whose unmeasured call fails is measured last: the configs before it keep their
// values, and its error is raised when the sweep reaches it.
TEST(Engine, AFailingUnmeasuredCallFailsTheSweepAtItsConfig) {
  ScriptedBackend gpu;
  gpu.unmeasured_call = true;
  Sweep sweep = Sweep().axis("n", {1, 2, 3});
  try {
    detail::run_sweep(gpu, quiet(2), sweep, [&](std::size_t c, int) {
      Annotation a("k");
      gpu.launch("kern", 10.0 + c);
      if (c == 1) throw std::runtime_error("config 2 is broken");
    });
    FAIL() << "no error";
  } catch (const UserFunctionError& e) {
    EXPECT_EQ(e.config(), 1u);
    EXPECT_NE(std::string(e.what()).find("config 2 is broken"), std::string::npos) << e.what();
    ASSERT_TRUE(e.partial_results());
    EXPECT_EQ(row(*e.partial_results(), "k", 0).num_runs, 2u);
  }
  EXPECT_EQ(gpu.unmeasured_regions, (std::vector<std::size_t>{1, 0}));  // no call of config 3
}

// Only the user's own errors wait for their config; kprof's (a CUDA error, an interrupt the
// front end turned into one) end the profile at once.
TEST(Engine, AKprofErrorInAnUnmeasuredCallEndsTheProfileAtOnce) {
  ScriptedBackend gpu;
  gpu.unmeasured_call = true;
  Sweep sweep = Sweep().axis("n", {1, 2, 3});
  std::vector<std::pair<std::size_t, int>> calls;
  EXPECT_THROW(detail::run_sweep(gpu, quiet(2), sweep,
                                 [&](std::size_t c, int run) {
                                   calls.emplace_back(c, run);
                                   Annotation a("k");
                                   if (c == 1) throw CudaError("device lost");
                                 }),
               CudaError);
  EXPECT_EQ(calls, (std::vector<std::pair<std::size_t, int>>{{0, 0}, {1, 0}}));
  EXPECT_FALSE(detail::RegionTracker::instance().profiling());
}

TEST(Engine, AnOuterRegionAroundSeveralKernelsNeedsACombine) {
  ScriptedBackend gpu;
  try {
    detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
      Annotation outer("outer");
      gpu.launch("a", 10);
      Annotation inner("inner");
      gpu.launch("b", 5);
    });
    FAIL() << "no MeasurementError";
  } catch (const MeasurementError& e) {
    EXPECT_NE(std::string(e.what()).find("within the outer annotation"), std::string::npos);
  }
}

TEST(Engine, SeveralKernelsStopTheSweepAtTheFirstConfigWithTheirRecordsKept) {
  ScriptedBackend gpu;
  int calls = 0;
  try {
    detail::run_sweep(gpu, quiet(2), Sweep().axis("n", {1, 2, 3}), [&](std::size_t, int) {
      ++calls;
      Annotation fused("fused");
      gpu.launch("add", 10);
      gpu.launch("mul", 5);
    });
    FAIL() << "no MeasurementError";
  } catch (const MeasurementError& e) {
    EXPECT_EQ(calls, 2);  // config 0's two runs, not the sweep's six
    ASSERT_TRUE(e.partial_results());
    EXPECT_EQ(e.partial_results()->records().size(), 4u);  // the kernels stay visible
  }
}

TEST(Engine, NestedRegionsAreInclusiveAndHaveTheirOwnPath) {
  ScriptedBackend gpu;
  Options o = quiet(1);
  o.combine = CombineKind::sum;
  Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) {
    Annotation outer("outer");
    gpu.launch("a", 10);
    {
      Annotation inner("inner");
      gpu.launch("b", 5);
    }
  });
  EXPECT_DOUBLE_EQ(row(r, "outer", 0).mean, 15.0);  // sum of its two kernels
  EXPECT_EQ(row(r, "outer", 0).kernel, "a|b");
  EXPECT_DOUBLE_EQ(row(r, "outer/inner", 0).mean, 5.0);
}

TEST(Engine, WorkerThreadLaunchesCountForTheProfilingThreadsRegion) {
  ScriptedBackend gpu;
  Results r = detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
    Annotation a("threaded");
    std::thread worker([&] { gpu.launch("w", 42); });
    worker.join();
  });
  EXPECT_DOUBLE_EQ(row(r, "threaded", 0).mean, 42.0);
}

TEST(Engine, LaunchesOutsideAnnotationsAreNotMeasured) {
  ScriptedBackend gpu;
  Results r = detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
    gpu.launch("warmup", 1000);
    Annotation a("k");
    gpu.launch("kern", 7);
  });
  ASSERT_EQ(r.records().size(), 1u);
  EXPECT_EQ(r.records()[0].kernel, "kern");
}

TEST(Engine, IgnoredKernelsMatchByNameWithoutParameters) {
  ScriptedBackend gpu;
  Options o = quiet(1);
  o.ignore_kernels = {"flush_kernel"};
  Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) {
    Annotation a("k");
    gpu.launch("flush_kernel(float*, int)", 1000);
    gpu.launch("kern", 7);
  });
  EXPECT_DOUBLE_EQ(row(r, "k", 0).mean, 7.0);
}

TEST(Engine, RegionWithoutKernelNamesRegionAndConfig) {
  ScriptedBackend gpu;
  Sweep sweep = Sweep().axis("n", {64});
  try {
    detail::run_sweep(gpu, quiet(2), sweep, [&](std::size_t, int) { Annotation a("empty"); });
    FAIL() << "no error";
  } catch (const MeasurementError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'empty'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("n=64"), std::string::npos) << msg;
  }
  EXPECT_EQ(gpu.stops, 1);
  EXPECT_FALSE(detail::RegionTracker::instance().profiling());
}

TEST(Engine, SameAnnotationTwiceInOneRunIsAnError) {
  ScriptedBackend gpu;
  EXPECT_THROW(detail::run_sweep(gpu, quiet(1), Sweep(),
                                 [&](std::size_t, int) {
                                   {
                                     Annotation a("k");
                                     gpu.launch("x", 1);
                                   }
                                   {
                                     Annotation b("k");
                                     gpu.launch("x", 1);
                                   }
                                 }),
               AnnotationError);
  EXPECT_EQ(gpu.stops, 1);
}

TEST(Engine, UserExceptionNamesConfigAndRunAndKeepsEarlierMeasurements) {
  ScriptedBackend gpu;
  Sweep sweep = Sweep().axis("n", {1, 2});
  try {
    detail::run_sweep(gpu, quiet(2), sweep, [&](std::size_t c, int run) {
      Annotation a("k");
      gpu.launch("kern", 10.0 + c);
      if (c == 1 && run == 1) throw std::runtime_error("out of memory");
    });
    FAIL() << "no error";
  } catch (const UserFunctionError& e) {
    EXPECT_EQ(e.config(), 1u);
    EXPECT_EQ(e.run(), 1);
    std::string msg = e.what();
    EXPECT_NE(msg.find("n=2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("config 2/2 (n=2), run 2/2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("out of memory"), std::string::npos) << msg;
    ASSERT_TRUE(e.partial_results());
    const Results& partial = *e.partial_results();
    EXPECT_EQ(row(partial, "k", 0).num_runs, 2u);
    EXPECT_EQ(row(partial, "k", 1).num_runs, 1u);  // the completed run of the failing config
  }
  EXPECT_EQ(gpu.stops, 1);
  EXPECT_FALSE(detail::RegionTracker::instance().profiling());
}

TEST(Engine, FailedRegionRunCountsAsNaN) {
  ScriptedBackend gpu;
  Results r = detail::run_sweep(gpu, quiet(3), Sweep(), [&](std::size_t, int run) {
    auto h = open_annotation("k");
    if (run != 1) gpu.launch("kern", 10);
    close_annotation(h, /*failed=*/run == 1);
  });
  EXPECT_EQ(row(r, "k", 0).num_runs, 2u);
  EXPECT_DOUBLE_EQ(row(r, "k", 0).mean, 10.0);
  ASSERT_EQ(r.samples().size(), 3u);
  EXPECT_TRUE(std::isnan(r.samples()[1].value));
}

TEST(Engine, NormalizeAgainstUnknownAnnotationFailsAfterFirstRun) {
  ScriptedBackend gpu;
  Options o = quiet(5);
  o.normalize_against = "baseline";
  int calls = 0;
  try {
    detail::run_sweep(gpu, o, Sweep().axis("n", {1, 2}), [&](std::size_t, int) {
      ++calls;
      Annotation a("k");
      gpu.launch("kern", 1);
    });
    FAIL() << "no error";
  } catch (const AnnotationError& e) {
    EXPECT_NE(std::string(e.what()).find("'k'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(calls, 1);
}

TEST(Engine, AnnotationLeftOpenIsAnError) {
  ScriptedBackend gpu;
  EXPECT_THROW(detail::run_sweep(gpu, quiet(1), Sweep(),
                                 [&](std::size_t, int) {
                                   open_annotation("dangling");
                                   gpu.launch("k", 1);
                                 }),
               AnnotationError);
  EXPECT_FALSE(detail::RegionTracker::instance().profiling());
  // The tracker is clean again: a new profile works.
  Results r = detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
    Annotation a("k");
    gpu.launch("k", 3);
  });
  EXPECT_DOUBLE_EQ(row(r, "k", 0).mean, 3.0);
}

TEST(Engine, AnnotationsOutsideAProfileOnlyCheckNesting) {
  {
    Annotation a("x");
    Annotation b("y");
  }
  EXPECT_THROW(open_annotation("a/b"), AnnotationError);
  EXPECT_THROW(open_annotation(""), AnnotationError);
}

TEST(Engine, ProgressReportedAfterEveryRun) {
  ScriptedBackend gpu;
  detail::SweepHooks hooks;
  std::vector<int> runs_done;
  hooks.progress = [&](const detail::Progress& p) { runs_done.push_back(p.run); };
  detail::run_sweep(
      gpu, quiet(2), Sweep(),
      [&](std::size_t, int) {
        Annotation a("k");
        gpu.launch("k", 1);
      },
      hooks);
  EXPECT_EQ(runs_done, (std::vector<int>{1, 2}));
}

TEST(Engine, PartialResultsOfAnEmptyRegionCountEveryEarlierRunOnce) {
  ScriptedBackend gpu;
  try {
    detail::run_sweep(gpu, quiet(2), Sweep(), [&](std::size_t, int run) {
      {
        Annotation a("k");
        gpu.launch("kern", 10);
      }
      if (run == 1)
        Annotation empty("empty");
      else {
        Annotation e("empty");
        gpu.launch("kern", 1);
      }
    });
    FAIL() << "no error";
  } catch (const MeasurementError& e) {
    ASSERT_TRUE(e.partial_results());
    const Row& k = row(*e.partial_results(), "k", 0);
    EXPECT_EQ(k.num_runs, 2u);
    EXPECT_DOUBLE_EQ(k.mean, 10.0);
  }
}

TEST(Engine, AFailedInnerRegionFailsTheRegionsAroundIt) {
  ScriptedBackend gpu;
  Options o = quiet(2);
  o.combine = CombineKind::sum;
  Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int run) {
    Annotation outer("outer");
    gpu.launch("a", 10);
    auto inner = open_annotation("inner");
    if (run == 0) gpu.launch("b", 5);
    close_annotation(inner, /*failed=*/run == 1);
  });
  EXPECT_EQ(row(r, "outer", 0).num_runs, 1u);  // run 1 is NaN: inner failed inside it
  EXPECT_DOUBLE_EQ(row(r, "outer", 0).mean, 15.0);
  EXPECT_EQ(row(r, "outer/inner", 0).num_runs, 1u);
}

namespace {
// Returns the kernels of the first collect only at the second one, as a late buffer would.
class LateBackend : public ScriptedBackend {
 public:
  std::vector<detail::Measurement> collect() override {
    auto now = ScriptedBackend::collect();
    std::swap(now, held_);
    return now;
  }

 private:
  std::vector<detail::Measurement> held_;
};
}  // namespace

TEST(Engine, ARecordArrivingAfterItsConfigWasCollectedIsAnError) {
  LateBackend gpu;
  Options o = quiet(1);
  EXPECT_THROW(detail::run_sweep(gpu, o, Sweep().axis("n", {1, 2}),
                                 [&](std::size_t, int) {
                                   Annotation a("k");
                                   gpu.launch("kern", 1);
                                 }),
               MeasurementError);
}

namespace {
class FailingCollectBackend : public ScriptedBackend {
 public:
  std::vector<detail::Measurement> collect() override {
    auto m = ScriptedBackend::collect();
    if (++calls == 2) throw MeasurementError("a kernel missed its L2 flush");
    return m;
  }
  int calls = 0;
};
}  // namespace

TEST(Engine, ValuesOfAConfigWhoseCollectFailedAreNaNInPartialResults) {
  FailingCollectBackend gpu;
  try {
    detail::run_sweep(gpu, quiet(2), Sweep().axis("n", {1, 2}), [&](std::size_t, int) {
      Annotation a("k");
      gpu.launch("kern", 4);
    });
    FAIL() << "no error";
  } catch (const MeasurementError& e) {
    ASSERT_TRUE(e.partial_results());
    EXPECT_EQ(row(*e.partial_results(), "k", 0).num_runs, 2u);
    EXPECT_EQ(row(*e.partial_results(), "k", 1).num_runs, 0u);
  }
}

TEST(Engine, ADeriveFunctionThatThrowsKeepsTheMeasurements) {
  ScriptedBackend gpu;
  Options o = quiet(2);
  o.derive = [](const std::vector<double>&, std::size_t) -> std::vector<DerivedValue> {
    throw std::runtime_error("division by zero");
  };
  try {
    detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) {
      Annotation a("k");
      gpu.launch("kern", 3);
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos) << e.what();
    ASSERT_TRUE(e.partial_results());
    EXPECT_DOUBLE_EQ(row(*e.partial_results(), "k", 0).mean, 3.0);
  }
}

TEST(Engine, AProfileOnASecondThreadIsRefusedBeforeAnyGpuWork) {
  ScriptedBackend gpu;
  std::atomic<bool> inside{false}, release{false};
  std::thread first([&] {
    detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
      Annotation a("k");
      gpu.launch("kern", 1.0);
      inside = true;
      while (!release) std::this_thread::yield();
    });
  });
  while (!inside) std::this_thread::yield();
  // kprof::profile itself: its check comes before the GPU backend, which this machine lacks.
  try {
    kprof::profile(quiet(1), [] {});
    ADD_FAILURE() << "no CuptiBusyError";
  } catch (const CuptiBusyError& e) {
    EXPECT_NE(std::string(e.what()).find("another thread"), std::string::npos) << e.what();
    EXPECT_NE(e.holder().find("kprof"), std::string::npos);
  }
  release = true;
  first.join();
  EXPECT_FALSE(detail::RegionTracker::instance().profiling());
}

TEST(Engine, AProfileInsideTheBenchmarkIsRefusedAsNesting) {
  ScriptedBackend gpu;
  try {
    detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
      Annotation a("k");
      gpu.launch("kern", 1.0);
      kprof::profile(quiet(1), [] {});
    });
    FAIL() << "no error";
  } catch (const AnnotationError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot nest"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(detail::RegionTracker::instance().profiling());
}
