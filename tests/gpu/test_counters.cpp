// Hardware counters from the range profiler, in every replay mode, against what the kernels
// must move: y = 2x over 2^26 floats reads and writes 256 MiB; z = x + y reads 512 MiB and
// writes 256 MiB; the FMA kernel moves almost nothing and keeps the SMs busy.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"
#include "test_kernels.hpp"

namespace kprof_test {
namespace {

constexpr std::size_t kN = std::size_t{1} << 26;
constexpr double kMiB = 1024.0 * 1024.0;
const std::string kRead = "dram__bytes_read.sum";
const std::string kWrite = "dram__bytes_write.sum";
const std::string kSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
const std::string kDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";

kprof::Options counter_options(std::vector<std::string> metrics, kprof::ReplayMode replay,
                               int runs = 3) {
  kprof::Options o = duration_options(kprof::CacheControl::all, runs);
  o.metrics = std::move(metrics);
  o.replay_mode = replay;
  return o;
}

double mean_of(const kprof::Results& results, const std::string& annotation,
               const std::string& metric) {
  for (const auto& row : results.rows())
    if (row.annotation == annotation && row.metric == metric && row.config == 0) return row.mean;
  ADD_FAILURE() << "no row for " << annotation << " / " << metric;
  return std::nan("");
}

void print_rows(const char* title, const kprof::Results& results) {
  std::printf("[ RESULT ] %s (passes %d, backend %s)\n", title, results.session().passes,
              results.session().backend.c_str());
  for (const auto& row : results.rows())
    std::printf("[ RESULT ]   %-14s %-52s mean %.6g %s (n=%zu)\n", row.annotation.c_str(),
                row.metric.c_str(), row.mean, row.unit.c_str(), row.num_runs);
}

kprof::Results stream_profile(kprof::ReplayMode replay) {
  kprof::demo::Kernels kernels(kN);
  return kprof::profile(
      counter_options({std::string(kprof::kDurationMetric), kRead, kWrite}, replay), [&] {
        {
          kprof::Annotation a("scale");
          kernels.scale(kN);
        }
        kprof::Annotation b("add");
        kernels.add(kN);
      });
}

TEST(Counters, KernelReplayDramBytesMatchTheory) {
  const kprof::Results r = stream_profile(kprof::ReplayMode::kernel);
  print_rows("kernel replay, scale and add over 2^26 floats", r);
  EXPECT_EQ(r.session().backend, "cupti-range-profiler");
  EXPECT_EQ(r.session().passes, 1);
  EXPECT_NEAR(mean_of(r, "scale", kRead) / (256 * kMiB), 1.0, 0.01);
  // Writes fall short of what the kernel wrote by what is still in L2 when it ends (Nsight
  // Compute: 0.91 of it on the H200).
  EXPECT_GT(mean_of(r, "scale", kWrite) / (256 * kMiB), 0.85);
  EXPECT_LE(mean_of(r, "scale", kWrite) / (256 * kMiB), 1.01);
  EXPECT_NEAR(mean_of(r, "add", kRead) / (512 * kMiB), 1.0, 0.01);
  EXPECT_GT(mean_of(r, "scale", std::string(kprof::kDurationMetric)), 100e3);  // > 100 us
}

// The flush before a region runs on the legacy default stream; a kernel on a stream that does
// not synchronise with it must still start after it and outside the range's counts.
TEST(Counters, RangeReplayCountsAKernelOnANonBlockingStreamWithoutTheFlush) {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  float* x = nullptr;
  float* y = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&x), kN * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void**>(&y), kN * sizeof(float)), "cudaMalloc");
  const kprof::Results r = kprof::profile(counter_options({kRead}, kprof::ReplayMode::range), [&] {
    kprof::Annotation a("scale");
    launch_stream_scale(stream, x, y, kN);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  });
  print_rows("range replay, scale over 2^26 floats on a non-blocking stream", r);
  // 256 MiB read; the flush's read of twice the L2 would add about half of it again.
  EXPECT_NEAR(mean_of(r, "scale", kRead) / (256 * kMiB), 1.0, 0.01);
  cudaFree(x);
  cudaFree(y);
  cudaStreamDestroy(stream);
}

TEST(Counters, RangeAndApplicationReplayAgreeWithKernelReplay) {
  const kprof::Results kernel = stream_profile(kprof::ReplayMode::kernel);
  for (kprof::ReplayMode replay : {kprof::ReplayMode::range, kprof::ReplayMode::application}) {
    const kprof::Results other = stream_profile(replay);
    print_rows((kprof::to_string(replay) + " replay, scale and add over 2^26 floats").c_str(),
               other);
    EXPECT_EQ(other.session().replay_mode, kprof::to_string(replay));
    for (const char* a : {"scale", "add"})
      for (const std::string& m : {kRead, kWrite})
        EXPECT_NEAR(mean_of(other, a, m) / mean_of(kernel, a, m), 1.0, 0.02) << a << " " << m;
  }
}

// With a set of several passes, application replay flushes the L2 before every pass of every
// kernel: a kernel reading 4 MiB (a fifteenth of the L2) reads all of it from DRAM in whichever
// pass counts the bytes. CUPTI before 13.4 cannot flush between kernel replay's passes: its
// value is printed, not asserted.
TEST(Counters, ApplicationReplayGivesEveryPassAColdL2) {
  constexpr std::size_t n = std::size_t{1} << 20;
  kprof::demo::Kernels kernels(n);
  const std::vector<std::string> metrics = {kRead, kSm, kDram, "l1tex__t_bytes.sum",
                                            "lts__t_bytes.sum"};
  for (kprof::ReplayMode replay : {kprof::ReplayMode::kernel, kprof::ReplayMode::application}) {
    const kprof::Results r = kprof::profile(counter_options(metrics, replay, 3), [&] {
      kprof::Annotation a("scale");
      kernels.scale(n);
    });
    print_rows((kprof::to_string(replay) + " replay, scale over 4 MiB").c_str(), r);
    ASSERT_GT(r.session().passes, 1);
    if (replay == kprof::ReplayMode::application)
      EXPECT_NEAR(mean_of(r, "scale", kRead) / (4 * kMiB), 1.0, 0.05);
  }
}

TEST(Counters, NestedRangesIncludeTheirInnerRanges) {
  kprof::demo::Kernels kernels(kN);
  const kprof::Results r =
      kprof::profile(counter_options({kRead}, kprof::ReplayMode::range, 2), [&] {
        kprof::Annotation outer("outer");
        kernels.add(kN);
        kprof::Annotation inner("inner");
        kernels.scale(kN);
      });
  print_rows("range replay, nested", r);
  EXPECT_NEAR(mean_of(r, "outer/inner", kRead) / (256 * kMiB), 1.0, 0.02);
  EXPECT_NEAR(mean_of(r, "outer", kRead) / (768 * kMiB), 1.0, 0.02);
}

// Sessions start small (a session's first Start costs in proportion to its capacity) and are
// sized from one unmeasured call per config: a config whose runs open many more regions than
// the one before gets room for them. Range replay: 20 runs of 1 region, then 20 of 150 (3,020
// ranges, several sessions); kernel replay: 2 runs of 1 kernel, then 2 of 40 (each with its
// flush). Every run keeps its value.
TEST(Counters, SessionsAreSizedForEveryConfig) {
  constexpr std::size_t n = std::size_t{1} << 20;  // 4 MiB read per scale
  kprof::demo::Kernels kernels(n);
  struct Case {
    kprof::ReplayMode replay;
    int wide;
    int runs;
  };
  for (const Case& c :
       {Case{kprof::ReplayMode::range, 150, 20}, Case{kprof::ReplayMode::kernel, 40, 2},
        Case{kprof::ReplayMode::application, 40, 2}}) {
    kprof::Sweep sweep;
    sweep.axis("regions", {std::int64_t{1}, std::int64_t{c.wide}});
    const kprof::Results r = kprof::profile(
        counter_options({kRead}, c.replay, c.runs), sweep, [&](const kprof::Config& config) {
          for (std::int64_t k = 0; k < config.get_int("regions"); ++k) {
            kprof::Annotation a("scale" + std::to_string(k));
            kernels.scale(n);
          }
        });
    ASSERT_EQ(r.rows().size(), 1u + static_cast<std::size_t>(c.wide));
    for (const auto& row : r.rows()) {
      EXPECT_EQ(row.num_runs, static_cast<std::size_t>(c.runs)) << row.annotation;
      EXPECT_NEAR(row.min / (4 * kMiB), 1.0, 0.05) << row.annotation;
      EXPECT_NEAR(row.max / (4 * kMiB), 1.0, 0.05) << row.annotation;
    }
  }
}

TEST(Counters, MultiPassThroughputTellsComputeFromMemoryBound) {
  kprof::demo::Kernels kernels(kN);
  for (kprof::ReplayMode replay :
       {kprof::ReplayMode::kernel, kprof::ReplayMode::range, kprof::ReplayMode::application}) {
    int calls = 0;
    const kprof::Results r = kprof::profile(counter_options({kSm, kDram}, replay, 2), [&] {
      ++calls;
      {
        kprof::Annotation a("scale");
        kernels.scale(kN);
      }
      kprof::Annotation b("fma");
      kernels.fma(kN / 4, 2000);
    });
    print_rows((kprof::to_string(replay) + " replay, SM vs DRAM %").c_str(), r);
    EXPECT_GT(r.session().passes, 1);
    EXPECT_GT(mean_of(r, "scale", kDram), mean_of(r, "scale", kSm));
    EXPECT_GT(mean_of(r, "fma", kSm), mean_of(r, "fma", kDram));
    EXPECT_GT(mean_of(r, "scale", kDram), 40.0);
    // One unmeasured call (it sizes the profiler's sessions and finds how deep the regions
    // nest), then kernel replay calls the benchmark once per run, range and application
    // replay once per pass and run; one unprofiled call follows (disclose_overhead).
    const int expected = 1 + (replay == kprof::ReplayMode::kernel ? 2 : 2 * r.session().passes) + 1;
    EXPECT_EQ(calls, expected);
  }
}

// With the overhead disclosed (the default), a run is timed until its kernels are done, in the
// counter modes too, as its unprofiled call is: the runs' times hold at least their kernels' own,
// and what profiling added is not told negative by timing one side without the GPU's work (runs
// timed without that wait, sharing one wait per session, read 0.04-0.39 ms below their unprofiled
// calls on the H200: docs/validation.md).
TEST(Counters, EveryCounterModeTimesTheRunsWithTheirKernels) {
  kprof::demo::Kernels kernels(kN);
  const std::string duration(kprof::kDurationMetric);
  for (kprof::ReplayMode replay :
       {kprof::ReplayMode::kernel, kprof::ReplayMode::range, kprof::ReplayMode::application}) {
    const kprof::Results r = kprof::profile(counter_options({duration, kRead}, replay, 4), [&] {
      kprof::Annotation a("fma");
      kernels.fma(kN / 4, 2000);  // ~1 ms
    });
    const double kernel_s = mean_of(r, "fma", duration) * 1e-9;
    double runs_s = 0;
    for (const kprof::RunInfo& run : r.run_info()) runs_s += run.seconds;
    const double overhead = r.rows().front().overhead_seconds;
    std::printf("[ RESULT ] %s replay: kernel %.3f ms, runs %.3f ms each, overhead %.3f ms\n",
                kprof::to_string(replay).c_str(), 1e3 * kernel_s, 1e3 * runs_s / 4, 1e3 * overhead);
    EXPECT_EQ(r.session().passes, 1);
    ASSERT_EQ(r.run_info().size(), 4u);
    EXPECT_GT(kernel_s, 200e-6);
    EXPECT_GE(runs_s, 0.95 * 4 * kernel_s);
    EXPECT_TRUE(std::isfinite(overhead));
    EXPECT_GT(overhead, -0.02 * kernel_s);
    EXPECT_GT(r.config_info().front().unprofiled_seconds, 0.95 * kernel_s);
  }
}

TEST(Counters, RangeAndApplicationReplayRefuseAPassThatLaunchesOtherKernels) {
  kprof::demo::Kernels kernels(1 << 20);
  for (kprof::ReplayMode replay : {kprof::ReplayMode::range, kprof::ReplayMode::application}) {
    int calls = 0;
    try {
      kprof::profile(counter_options({kSm}, replay, 1), [&] {
        kprof::Annotation a("work");
        if (++calls == 3)
          kernels.add(1 << 20);  // the second pass differs
        else
          kernels.scale(1 << 20);
      });
      FAIL() << "no error";
    } catch (const kprof::MeasurementError& e) {
      std::printf("[ RESULT ] %s\n", e.what());
      EXPECT_NE(std::string(e.what()).find("'work'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("replay_mode='" + kprof::to_string(replay)),
                std::string::npos)
          << e.what();
    }
  }
}

// Auto ranges pair with launches by their order: an extra kernel outside every annotation in
// a later pass is an error too.
TEST(Counters, ApplicationReplayCountsKernelsOutsideAnnotations) {
  kprof::demo::Kernels kernels(1 << 20);
  int calls = 0;
  try {
    kprof::profile(counter_options({kSm}, kprof::ReplayMode::application, 1), [&] {
      if (++calls == 3) kernels.add(1 << 20);
      kprof::Annotation a("work");
      kernels.scale(1 << 20);
    });
    FAIL() << "no error";
  } catch (const kprof::MeasurementError& e) {
    std::printf("[ RESULT ] %s\n", e.what());
    EXPECT_NE(std::string(e.what()).find("in the first pass"), std::string::npos) << e.what();
  }
}

// capture_graph's graph on a stream of its own, freed with the test.
class GraphOnStream {
 public:
  GraphOnStream() {
    check(cudaMalloc(reinterpret_cast<void**>(&out_), 1024 * sizeof(float)), "cudaMalloc");
    check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    graph_ = capture_graph(stream_, out_);
  }
  ~GraphOnStream() {
    cudaGraphExecDestroy(graph_);
    cudaStreamDestroy(stream_);
    cudaFree(out_);
  }
  GraphOnStream(const GraphOnStream&) = delete;
  GraphOnStream& operator=(const GraphOnStream&) = delete;
  void launch_and_wait() const {
    check(cudaGraphLaunch(graph_, stream_), "cudaGraphLaunch");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

 private:
  float* out_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaGraphExec_t graph_ = nullptr;
};

TEST(Counters, GraphLaunchesInKernelReplay) {
  const GraphOnStream graph;
  for (kprof::ReplayMode replay :
       {kprof::ReplayMode::kernel, kprof::ReplayMode::range, kprof::ReplayMode::application}) {
    try {
      kprof::Options o = counter_options({kRead}, replay, 1);
      o.combine = kprof::CombineKind::sum;  // the graph's kernels, where kernel replay works
      const kprof::Results r = kprof::profile(o, [&] {
        kprof::Annotation a("graph");
        graph.launch_and_wait();
      });
      print_rows("graph launch", r);
      EXPECT_FALSE(r.records().empty());
    } catch (const kprof::MeasurementError& e) {
      std::printf("[ RESULT ] graph launch, %s replay: %s\n", kprof::to_string(replay).c_str(),
                  e.what());
      EXPECT_NE(replay, kprof::ReplayMode::range) << e.what();
      EXPECT_NE(std::string(e.what()).find("replay_mode='range'"), std::string::npos);
    }
  }
}

// A graph launched only after the unmeasured call (torch's CUDA-graph warm-up runs eagerly
// first) is still named, not left to CUPTI's error.
TEST(Counters, AGraphLaunchedAfterTheUnmeasuredCallIsNamedInApplicationReplay) {
  const GraphOnStream graph;
  kprof::demo::Kernels kernels(1 << 20);
  int calls = 0;
  try {
    kprof::profile(counter_options({kSm}, kprof::ReplayMode::application, 1), [&] {
      kprof::Annotation a("graph");
      if (++calls == 1)
        kernels.scale(1 << 20);
      else
        graph.launch_and_wait();
    });
    ADD_FAILURE() << "no error";
  } catch (const kprof::MeasurementError& e) {
    std::printf("[ RESULT ] graph after the unmeasured call, application replay: %s\n", e.what());
    EXPECT_NE(std::string(e.what()).find("replay_mode='application'"), std::string::npos);
  }
}

// The flush before a kernel is skipped when the launch is captured into a graph, and so is
// the profiler's pause around it, whose synchronization would break the user's capture.
TEST(Counters, ACaptureInsideAKernelReplayProfileIsLeftIntact) {
  float* out = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&out), 1024 * sizeof(float)), "cudaMalloc");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  for (const std::vector<std::string>& metrics :
       {std::vector<std::string>{kRead}, std::vector<std::string>{kSm, kDram}}) {
    int captured = 0;
    try {
      (void)kprof::profile(counter_options(metrics, kprof::ReplayMode::kernel, 1), [&] {
        kprof::Annotation a("capture");
        cudaGraphExec_t graph = capture_graph(stream, out);  // throws if the capture broke
        ++captured;
        cudaGraphExecDestroy(graph);
      });
    } catch (const kprof::MeasurementError& e) {
      // Captured launches run later, as a graph: kernel replay finds no range for them.
      std::printf("[ RESULT ] capture in kernel replay, %zu metric(s): %s\n", metrics.size(),
                  e.what());
    }
    EXPECT_EQ(captured, 2) << metrics.size() << " metric(s)";  // the unmeasured call and a run
  }
  cudaStreamDestroy(stream);
  cudaFree(out);
}

TEST(Counters, DurationsOnlyStillUseActivityRecordsAfterACounterProfile) {
  kprof::demo::Kernels kernels(1 << 20);
  (void)kprof::profile(counter_options({kRead}, kprof::ReplayMode::kernel, 1), [&] {
    kprof::Annotation a("scale");
    kernels.scale(1 << 20);
  });
  const kprof::Results r = kprof::profile(duration_options(kprof::CacheControl::all, 3), [&] {
    kprof::Annotation a("scale");
    kernels.scale(1 << 20);
  });
  EXPECT_EQ(r.session().backend, "cupti-activity");
  EXPECT_GT(duration_row(r, "scale").mean, 0);
}

}  // namespace
}  // namespace kprof_test
