// Failures a user can cause: a region without kernels, options this build cannot measure.
#include <gtest/gtest.h>

#include "core/measure/gpu_layer.hpp"
#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"

namespace kprof_test {
namespace {

TEST(Errors, RegionWithoutKernelIsAMeasurementError) {
  kprof::demo::Kernels kernels(1024);
  auto options = duration_options(kprof::CacheControl::all, 2);
  try {
    kprof::profile(options, [&] {
      {
        kprof::Annotation a("busy");
        kernels.scale(1024);
      }
      { kprof::Annotation a("empty"); }
    });
    FAIL() << "expected MeasurementError";
  } catch (const kprof::MeasurementError& e) {
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
  }
}

// The backend is made for a resolved replay mode (profile() resolves "auto").
kprof::Options kernel_replay() {
  kprof::Options options;
  options.replay_mode = kprof::ReplayMode::kernel;
  return options;
}

TEST(Errors, DurationsAloneUseActivityRecordsAnythingElseTheRangeProfiler) {
  kprof::Options options = kernel_replay();
  EXPECT_EQ(kprof::detail::make_gpu_backend(options)->describe().backend, "cupti-activity");
  options.metrics = {"dram__bytes_read.sum"};
  EXPECT_EQ(kprof::detail::make_gpu_backend(options)->describe().backend, "cupti-range-profiler");
  options = kprof::Options{};
  options.replay_mode = kprof::ReplayMode::range;  // durations of whole ranges
  EXPECT_EQ(kprof::detail::make_gpu_backend(options)->describe().backend, "cupti-range-profiler");
  // clock_control="base" is the engine's (NVML), not the backend's: creating a backend never
  // touches clocks. (No test locks the clocks of the lent GPU: they are not ours to change.)
  options = kernel_replay();
  options.clock_control = kprof::ClockControl::base;
  EXPECT_NO_THROW(kprof::detail::make_gpu_backend(options));
}

TEST(Errors, BackendStopIsIdempotentAndStartable) {
  auto backend = kprof::detail::make_gpu_backend(kernel_replay());
  backend->stop();  // before start: nothing to release
  backend->start(kprof::Options{});
  EXPECT_TRUE(backend->salvage().empty());  // no region open: nothing measured
  backend->stop();
  backend->stop();
  backend->start(kprof::Options{});  // a stopped backend starts again
  backend->stop();
}

}  // namespace
}  // namespace kprof_test
