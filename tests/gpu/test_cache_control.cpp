// cache_control=all gives every measured kernel a cold L2; none leaves it warm.
//
// A 1 MiB y = 2x fits the 60 MiB L2 many times over: warm, its input comes from L2; cold, from
// HBM. On the H200 the probe measured 1.50 us warm and 2.18 us cold (a standalone CUPTI program, no
// PyTorch).
#include <gtest/gtest.h>

#include <cstdio>

#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"

namespace kprof_test {
namespace {

double scale_median(kprof::demo::Kernels& kernels, std::size_t n, kprof::CacheControl cache) {
  auto results = kprof::profile(duration_options(cache, 31), [&] {
    kprof::Annotation a("scale");
    kernels.scale(n);
  });
  return duration_row(results, "scale").median;
}

TEST(CacheControl, ColdL2IsSlowerThanWarm) {
  constexpr std::size_t n = std::size_t{1} << 18;  // 1 MiB of floats
  kprof::demo::Kernels kernels(n);
  kernels.scale(n);
  kernels.synchronize();
  double warm = scale_median(kernels, n, kprof::CacheControl::none);
  double cold = scale_median(kernels, n, kprof::CacheControl::all);
  std::printf(
      "[ RESULT ] scale 1 MiB: warm (cache none) median %.0f ns, cold (cache all) median "
      "%.0f ns, cold/warm %.3f\n",
      warm, cold, cold / warm);
  EXPECT_GT(warm, 0);
  EXPECT_GT(cold, warm * 1.10) << "a cold L2 should make the kernel measurably slower";
}

// The flush is not part of the kernel's record: a 300 us spin kernel, which touches no memory,
// lasts the same with and without it (a 120 MiB memset takes ~28 us).
TEST(CacheControl, FlushIsOutsideTheMeasuredTime) {
  kprof::demo::Kernels kernels(1024);
  auto spin = [&](kprof::CacheControl cache) {
    auto results = kprof::profile(duration_options(cache, 11), [&] {
      kprof::Annotation a("spin");
      kernels.spin(300);
    });
    return duration_row(results, "spin").median;
  };
  double warm = spin(kprof::CacheControl::none);
  double cold = spin(kprof::CacheControl::all);
  std::printf("[ RESULT ] spin 300 us: cache none %.0f ns, cache all %.0f ns\n", warm, cold);
  EXPECT_NEAR(cold / warm, 1.0, 0.02);
}

}  // namespace
}  // namespace kprof_test
