// What kprof adds to the host side of a launch: wall time of many small launches with and
// without a profile. Reported, loosely bounded: CUPTI's own floor is ~6-10 us per traced
// kernel and ~30 us per L2 flush on the H200 (a standalone CUPTI program, no PyTorch).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>

#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"

namespace kprof_test {
namespace {

constexpr int kLaunches = 200;

double seconds_of(const std::function<void()>& fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(Overhead, PerKernelCostIsReported) {
  kprof::demo::Kernels kernels(1024);
  auto burst = [&] {
    for (int i = 0; i < kLaunches; ++i) kernels.scale(1024);
    kernels.synchronize();
  };
  burst();  // warm-up
  double plain = seconds_of(burst);
  double traced[2] = {0, 0};
  const kprof::CacheControl modes[2] = {kprof::CacheControl::none, kprof::CacheControl::all};
  for (int m = 0; m < 2; ++m) {
    double body = 0;
    double total = seconds_of([&] {
      kprof::Options options = duration_options(modes[m], 3);
      options.combine = kprof::CombineKind::sum;  // a burst of launches in one region
      kprof::profile(options, [&] {
        body += seconds_of([&] {
          kprof::Annotation a("burst");
          burst();
        });
      });
    });
    traced[m] = body / 3;
    std::printf(
        "[ RESULT ] %d launches of scale(1024): plain %.1f us/kernel, profiled (cache %s) "
        "%.1f us/kernel inside the function, whole profile() %.1f ms\n",
        kLaunches, plain / kLaunches * 1e6, m == 0 ? "none" : "all", traced[m] / kLaunches * 1e6,
        total * 1e3);
  }
  EXPECT_LT((traced[0] - plain) / kLaunches, 100e-6);
  EXPECT_LT((traced[1] - plain) / kLaunches, 200e-6);
}

}  // namespace
}  // namespace kprof_test
