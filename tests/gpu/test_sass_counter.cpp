// CUPTI's SASS metrics API with nvdisasm's opcodes (cuda/cupti/sass_counter.hpp) on kernels of
// known counts: each FP class reads threads x iterations, as Nsight Compute's
// smsp__sass_thread_inst_executed_op_<class>_pred_on.sum does.
#include <cupti.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/measure/flop_pass.hpp"
#include "core/measure/gpu_layer.hpp"
#include "core/measure/region_tracker.hpp"
#include "core/metrics/sass_opcodes.hpp"
#include "cuda/cupti/sass_counter.hpp"
#include "cuda/cupti/sass_instruction_counter.hpp"
#include "cuda/device/driver_api.hpp"
#include "gpu_test_support.hpp"
#include "kprof/kprof.hpp"
#include "sass_kernels.hpp"

namespace {

using kprof::detail::FlopClass;
using kprof::detail::FlopCounts;
using kprof::detail::SassCounter;

double count(const std::map<std::string, FlopCounts>& counts, const std::string& kernel,
             FlopClass c) {
  for (const auto& [function, classes] : counts)
    if (function.find(kernel) != std::string::npos) return classes[static_cast<int>(c)];
  ADD_FAILURE() << "no counts for " << kernel;
  return -1;
}

// The mean of a class's count in an annotation's row of `r`.
double flop_mean(const kprof::Results& r, const std::string& annotation, FlopClass c) {
  for (const kprof::Row& row : r.rows())
    if (row.annotation == annotation && row.metric == kprof::detail::flop_metric(c))
      return row.mean;
  ADD_FAILURE() << "no row of " << annotation << ", " << kprof::detail::flop_metric(c);
  return -1;
}

struct Case {
  kprof_test::SassKernel kernel;
  const char* name;
  FlopClass a, b;
};

class SassCounterCounts : public ::testing::TestWithParam<Case> {};

// Keeps the cubins of the modules loaded from here on, for the process, as set:flop does
// (kprof's subscription held for the process, which a profile later in the test borrows).
struct KeepModules {
  KeepModules() { kprof::detail::watch_module_loads(); }
};

// One kernel per test: CTest runs each in its own process, and CUPTI 13.0 on the H200 collected
// only the first kernel function launched in a process's collection (docs/validation.md, "The
// SASS counter on the GPU"), whatever the loading, patching and flushing tried.

TEST_P(SassCounterCounts, TheFirstKernelReadsThreadsTimesIterationsOfItsClasses) {
  if (kprof::detail::find_nvdisasm().empty()) GTEST_SKIP() << "no nvdisasm (KPROF_NVDISASM)";
  static bool collected_before = false;  // in this process
  if (collected_before && !SassCounter::counts_every_kernel())
    GTEST_SKIP() << "CUPTI before 13.5 counts only the first kernel of a process's collection: "
                    "run each case in a process of its own (ctest does)";
  collected_before = true;
  const Case c = GetParam();
  const KeepModules keep;
  SassCounter counter;
  CUcontext context = nullptr;
  ASSERT_EQ(kprof::detail::driver_api().ctx_get_current(&context), CUDA_SUCCESS);
  void* out = nullptr;
  kprof_test::check(cudaMalloc(&out, kprof_test::kSassBlocks * kprof_test::kSassThreads * 8),
                    "cudaMalloc");
  counter.enable(context);
  kprof_test::launch_sass(c.kernel, out);
  kprof_test::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto counts = counter.flop_counts(counter.flush());
  const double threads = double(kprof_test::kSassBlocks) * kprof_test::kSassThreads;
  const double expected = threads * kprof_test::kSassIters;
  const double a = count(counts, c.name, c.a), b = count(counts, c.name, c.b);
  std::printf("[ RESULT ] %s: class %d %.0f, class %d %.0f, expected %.0f each\n", c.name, int(c.a),
              a, int(c.b), b, expected);
  // The loop's instructions exactly; the rest of the kernel may add one of the same class per
  // thread.
  EXPECT_GE(a, expected);
  EXPECT_LE(a, expected + threads);
  EXPECT_GE(b, expected);
  EXPECT_LE(b, expected + threads);
  EXPECT_EQ(counter.disable(), 0u);
  cudaFree(out);
}

// What a count of FLOP inside a profile needs of the SASS counter: to count after the range
// profiler has run in the process, and to leave the kernels as fast as before once disabled.
// Both need a CUPTI that counts every kernel of a collection (13.5).
class SassCounterBesideAProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kprof::detail::find_nvdisasm().empty()) GTEST_SKIP() << "no nvdisasm (KPROF_NVDISASM)";
    if (!SassCounter::counts_every_kernel())
      GTEST_SKIP() << "CUPTI before 13.5 counts only the first kernel of a collection";
    // Before any launch of the test: the kernels' module loads at its first (lazy loading).
    const KeepModules keep;
    kprof_test::check(cudaMalloc(&out_, kprof_test::kSassBlocks * kprof_test::kSassThreads * 8),
                      "cudaMalloc");
  }
  void TearDown() override {
    if (out_ != nullptr) cudaFree(out_);
  }

  // An FFMA kernel's FFMA count, collected by a SassCounter enabled around one launch.
  double count_ffma(kprof_test::SassKernel kernel = kprof_test::SassKernel::ffma) {
    SassCounter counter;
    CUcontext context = nullptr;
    EXPECT_EQ(kprof::detail::driver_api().ctx_get_current(&context), CUDA_SUCCESS);
    counter.enable(context);
    kprof_test::launch_sass(kernel, out_);
    kprof_test::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const auto counts = SassCounter::flop_counts(counter.flush());
    EXPECT_EQ(counter.disable(), 0u);
    const bool timed = kernel == kprof_test::SassKernel::timed_ffma;
    return count(counts, timed ? "sass_timed_ffma" : "sass_ffma", FlopClass::ffma);
  }

  // An FFMA kernel's duration (ns, median of 10 runs) as kprof times it.
  double ffma_duration(kprof_test::SassKernel kernel) {
    const kprof::Results r =
        kprof::profile(kprof_test::duration_options(kprof::CacheControl::none, 10), [&] {
          kprof::Annotation a("ffma");
          kprof_test::launch_sass(kernel, out_);
        });
    return kprof_test::duration_row(r, "ffma").median;
  }

  void* out_ = nullptr;
};

TEST_F(SassCounterBesideAProfile, CountsAfterTheRangeProfilerRanInTheProcess) {
  const kprof::Results r = kprof::profile(
      [] {
        kprof::Options o = kprof_test::duration_options(kprof::CacheControl::all, 2);
        o.metrics = {"dram__bytes_read.sum"};
        o.replay_mode = kprof::ReplayMode::range;
        return o;
      }(),
      [&] {
        kprof::Annotation a("ffma");
        kprof_test::launch_sass(kprof_test::SassKernel::ffma, out_);
      });
  ASSERT_EQ(r.rows().size(), 1u);
  const double threads = double(kprof_test::kSassBlocks) * kprof_test::kSassThreads;
  const double ffma = count_ffma();
  std::printf("[ RESULT ] FFMA after a range-profiler profile: %.0f, expected %.0f\n", ffma,
              threads * kprof_test::kSassIters);
  EXPECT_GE(ffma, threads * kprof_test::kSassIters);
  EXPECT_LE(ffma, threads * (kprof_test::kSassIters + 1));
}

// A kernel no other test counts, so that "before" is its first patching's before in any process;
// a kernel left instrumented would run several times slower, which the bound tells from the
// spread of a few-microsecond kernel at unlocked clocks.
TEST_F(SassCounterBesideAProfile, LeavesTheKernelsAsFastOnceDisabled) {
  const double before = ffma_duration(kprof_test::SassKernel::timed_ffma);
  const double counted = count_ffma(kprof_test::SassKernel::timed_ffma);
  const double after = ffma_duration(kprof_test::SassKernel::timed_ffma);
  std::printf("[ RESULT ] FFMA kernel %.1f us before counting (%.0f FFMA), %.1f us after\n",
              before / 1e3, counted, after / 1e3);
  EXPECT_GT(counted, 0);
  EXPECT_LT(after / before, 1.25);
}

// set:flop's counted call (core/measure/flop_pass.hpp) on the GPU: each region reads its own
// kernel's instructions, exactly.
TEST_F(SassCounterBesideAProfile, CountsEachRegionOfACountedCall) {
  kprof::detail::SassInstructionCounter counter;
  auto& tracker = kprof::detail::RegionTracker::instance();
  tracker.begin_profile();
  std::vector<kprof::detail::RegionFlop> regions;
  try {
    regions = kprof::detail::count_flop(
        counter, kprof::Sweep(),
        [&](std::size_t, int) {
          {
            kprof::Annotation a("ffma");
            kprof_test::launch_sass(kprof_test::SassKernel::ffma, out_);
          }
          kprof::Annotation b("dfma");
          kprof_test::launch_sass(kprof_test::SassKernel::dfma, out_);
        },
        nullptr);
  } catch (...) {
    tracker.end_profile();
    throw;
  }
  tracker.end_profile();
  const double expected =
      double(kprof_test::kSassBlocks) * kprof_test::kSassThreads * kprof_test::kSassIters;
  ASSERT_EQ(regions.size(), 2u);
  for (const auto& region : regions) {
    const bool ffma = region.annotation == "ffma";
    const double own = count(region.functions, ffma ? "sass_ffma" : "sass_dfma",
                             ffma ? FlopClass::ffma : FlopClass::dfma);
    std::printf("[ RESULT ] counted call, region %s: %.0f, expected %.0f\n",
                region.annotation.c_str(), own, expected);
    EXPECT_GE(own, expected);
    EXPECT_LE(own, expected * 1.001);
    EXPECT_EQ(region.functions.size(), 1u) << region.annotation << " counted another kernel";
  }
}

// set:flop end to end: a profile's counts of each region's kernel, exactly, a kernel launched
// before the profile (a warm-up's) among them.
TEST_F(SassCounterBesideAProfile, AProfileOfSetFlopCountsEachRegionsKernel) {
  kprof_test::launch_sass(kprof_test::SassKernel::ffma, out_);
  kprof_test::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  kprof::Options o = kprof_test::duration_options(kprof::CacheControl::all, 2);
  o.metrics = {"set:flop"};
  const kprof::Results r = kprof::profile(o, [&] {
    {
      kprof::Annotation a("ffma");
      kprof_test::launch_sass(kprof_test::SassKernel::ffma, out_);
    }
    kprof::Annotation b("dfma");
    kprof_test::launch_sass(kprof_test::SassKernel::dfma, out_);
  });
  const auto value = [&r](const std::string& annotation, FlopClass c) {
    return flop_mean(r, annotation, c);
  };
  const double expected =
      double(kprof_test::kSassBlocks) * kprof_test::kSassThreads * kprof_test::kSassIters;
  const double ffma = value("ffma", FlopClass::ffma), dfma = value("dfma", FlopClass::dfma);
  std::printf(
      "[ RESULT ] set:flop in a profile: ffma region %.0f FFMA, dfma region %.0f DFMA, "
      "expected %.0f each\n",
      ffma, dfma, expected);
  EXPECT_GE(ffma, expected);
  EXPECT_LE(ffma, expected * 1.001);
  EXPECT_GE(dfma, expected);
  EXPECT_LE(dfma, expected * 1.001);
  EXPECT_EQ(value("ffma", FlopClass::dfma), 0);  // each region its own kernel's
  EXPECT_EQ(value("dfma", FlopClass::ffma), 0);
}

// Range replay measures each region whole, nested regions included: an outer range that launched
// nothing itself reads its nested regions' counts, each nested one its own kernel's.
TEST_F(SassCounterBesideAProfile, RangeReplayGivesAnOuterRangeItsNestedRegionsCounts) {
  kprof::Options o = kprof_test::duration_options(kprof::CacheControl::none, 2);
  o.metrics = {"set:flop"};
  o.replay_mode = kprof::ReplayMode::range;
  const kprof::Results r = kprof::profile(o, [&] {
    kprof::Annotation outer("outer");
    {
      kprof::Annotation a("ffma");
      kprof_test::launch_sass(kprof_test::SassKernel::ffma, out_);
    }
    kprof::Annotation b("dfma");
    kprof_test::launch_sass(kprof_test::SassKernel::dfma, out_);
  });
  const double expected =
      double(kprof_test::kSassBlocks) * kprof_test::kSassThreads * kprof_test::kSassIters;
  const double outer_ffma = flop_mean(r, "outer", FlopClass::ffma);
  const double outer_dfma = flop_mean(r, "outer", FlopClass::dfma);
  std::printf("[ RESULT ] set:flop in range replay: outer %.0f FFMA and %.0f DFMA, expected %.0f\n",
              outer_ffma, outer_dfma, expected);
  for (const double v : {outer_ffma, outer_dfma, flop_mean(r, "outer/ffma", FlopClass::ffma),
                         flop_mean(r, "outer/dfma", FlopClass::dfma)}) {
    EXPECT_GE(v, expected);
    EXPECT_LE(v, expected * 1.001);
  }
  EXPECT_EQ(flop_mean(r, "outer/ffma", FlopClass::dfma), 0);
  EXPECT_EQ(flop_mean(r, "outer/dfma", FlopClass::ffma), 0);
}

// profile() keeps the modules' code from its start: a kernel first launched inside the profile
// is counted. (CTest runs it in a process of its own, where nothing started the watcher before.)
TEST(SassProfile, CountsAKernelFirstLaunchedInsideTheProfile) {
  if (const std::string why = kprof::detail::flop_counting_unavailable(); !why.empty())
    GTEST_SKIP() << why;
  void* out = nullptr;
  kprof_test::check(cudaMalloc(&out, kprof_test::kSassBlocks * kprof_test::kSassThreads * 8),
                    "cudaMalloc");
  kprof::Options o = kprof_test::duration_options(kprof::CacheControl::none, 1);
  o.metrics = {"set:flop"};
  const kprof::Results r = kprof::profile(o, [&] {
    kprof::Annotation a("hfma2");
    kprof_test::launch_sass(kprof_test::SassKernel::hfma2, out);
  });
  cudaFree(out);
  const double expected =
      double(kprof_test::kSassBlocks) * kprof_test::kSassThreads * kprof_test::kSassIters;
  const double hfma = flop_mean(r, "hfma2", FlopClass::hfma);
  std::printf(
      "[ RESULT ] set:flop, a kernel first launched in the profile: %.0f HFMA2, "
      "expected %.0f\n",
      hfma, expected);
  EXPECT_GE(hfma, expected);
  EXPECT_LE(hfma, expected * 1.001);
}

INSTANTIATE_TEST_SUITE_P(
    FpClasses, SassCounterCounts,
    ::testing::Values(
        Case{kprof_test::SassKernel::ffma, "sass_ffma", FlopClass::ffma, FlopClass::ffma},
        Case{kprof_test::SassKernel::fadd_fmul, "sass_fadd_fmul", FlopClass::fadd, FlopClass::fmul},
        Case{kprof_test::SassKernel::dfma, "sass_dfma", FlopClass::dfma, FlopClass::dfma},
        Case{kprof_test::SassKernel::hfma2, "sass_hfma2", FlopClass::hfma, FlopClass::hfma}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
