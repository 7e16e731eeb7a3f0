// Faults a profile meets on the GPU: Ctrl-C in a C++ program, and a kernel's illegal memory
// access, after which the process's CUDA context is lost (run in a child process).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"
#include "test_kernels.hpp"

namespace kprof_test {
namespace {

kprof::Sweep three_configs() { return kprof::Sweep().axis("c", {0, 1, 2}); }

// Counts the runs of each config in `r` whose duration is a number.
std::vector<int> finite_runs(const kprof::Results& r) {
  std::vector<int> runs(3, 0);
  for (const kprof::Record& x : r.records())
    if (x.metric == kprof::kDurationMetric && std::isfinite(x.value)) ++runs.at(x.config);
  return runs;
}

TEST(Faults, CtrlCStopsAfterTheRunInProgressWithTheRunsMade) {
  std::signal(SIGINT, SIG_DFL);
  kprof::demo::Kernels kernels(1 << 16);
  int calls = 0;
  try {
    kprof::profile(duration_options(kprof::CacheControl::all, 3), three_configs(),
                   [&](const kprof::Config&) {
                     kprof::Annotation a("scale");
                     kernels.scale(1 << 16);
                     if (++calls == 5) std::raise(SIGINT);  // config 1, run 1
                   });
    FAIL() << "no InterruptError";
  } catch (const kprof::InterruptError& e) {
    ASSERT_TRUE(e.partial_results());
    EXPECT_EQ(finite_runs(*e.partial_results()), (std::vector<int>{3, 2, 0}));
  }
  EXPECT_EQ(calls, 5);
  struct sigaction now{};
  sigaction(SIGINT, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

// In the child: a sweep whose config 1 faults in its run 1. What it checks goes to stderr.
[[noreturn]] void profile_into_a_fault(bool counters) {
  kprof::demo::Kernels kernels(1 << 16);
  kprof::Options options = duration_options(kprof::CacheControl::all, 3);
  if (counters) options.metrics = {std::string(kprof::kDurationMetric), "dram__bytes_read.sum"};
  int calls = 0;
  try {
    kprof::profile(options, three_configs(), [&](const kprof::Config& c) {
      kprof::Annotation a("scale");
      kernels.scale(1 << 16);
      if (c.index() == 1 && ++calls == 2) launch_fault();
    });
    std::fprintf(stderr, "no error\n");
  } catch (const kprof::GpuFaultError& e) {
    const std::string what = e.what();
    const bool says = what.find("context of this process is lost") != std::string::npos &&
                      what.find("cudaErrorIllegalAddress") != std::string::npos;
    const std::vector<int> runs =
        e.partial_results() ? finite_runs(*e.partial_results()) : std::vector<int>{};
    std::fprintf(stderr, "%s says=%d runs=%d,%d,%d\n", e.kind(), says, runs.at(0), runs.at(1),
                 runs.at(2));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "other error: %s\n", e.what());
  }
  std::exit(0);
}

// No value read after the fault is a number (config 0 keeps its values only where they were read
// before it); the process ends by itself (exit 0) after the error.
TEST(Faults, AnIllegalMemoryAccessIsAGpuFaultErrorWithTheConfigsBefore) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: the fault ends its context
  EXPECT_EXIT(profile_into_a_fault(false), ::testing::ExitedWithCode(0),
              "GpuFaultError says=1 runs=[0-3],0,0");
}

TEST(Faults, AnIllegalMemoryAccessUnderCountersIsAGpuFaultErrorToo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(profile_into_a_fault(true), ::testing::ExitedWithCode(0),
              "GpuFaultError says=1 runs=[0-3],0,0");
}

// kprof profiles one device: a region's kernel on another is refused with both devices named,
// with durations and counters, flushed or not. Needs two GPUs.
TEST(Faults, AKernelOnASecondDeviceIsRefusedNamingBothDevices) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count < 2) GTEST_SKIP() << "one GPU: a second device cannot be launched on";
  check(cudaSetDevice(1), "cudaSetDevice(1)");
  kprof::demo::Kernels other(1 << 16);
  check(cudaSetDevice(0), "cudaSetDevice(0)");
  struct Case {
    kprof::CacheControl cache;
    bool counters;
  };
  for (const Case c :
       {Case{kprof::CacheControl::none, false}, Case{kprof::CacheControl::all, false},
        Case{kprof::CacheControl::all, true}}) {
    kprof::Options options = duration_options(c.cache, 2);
    if (c.counters) options.metrics = {"dram__bytes_read.sum"};
    try {
      kprof::profile(options, [&] {
        kprof::Annotation a("elsewhere");
        check(cudaSetDevice(1), "cudaSetDevice(1)");
        other.scale(1 << 16);
        check(cudaSetDevice(0), "cudaSetDevice(0)");
      });
      ADD_FAILURE() << "no error (counters " << c.counters << ")";
    } catch (const kprof::Error& e) {  // a MeasurementError, or the error of the config it ends
      EXPECT_STREQ(e.kind(), "MeasurementError") << e.what();
      const std::string what = e.what();
      EXPECT_NE(what.find("on CUDA device 1, while kprof profiles device 0"), std::string::npos)
          << what;
    }
  }
}

}  // namespace
}  // namespace kprof_test
