// What kprof reports about the machine and the session on a real GPU.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/measure/gpu_layer.hpp"
#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"
#include "kprof/errors.hpp"

namespace kprof_test {
namespace {

TEST(System, QuerySystemSeesTheGpu) {
  kprof::SystemInfo info = kprof::query_system();
  EXPECT_TRUE(info.built_with_cuda);
  EXPECT_TRUE(info.driver_loaded) << info.driver_error;
  EXPECT_GE(info.driver_version, 13000);
  EXPECT_GE(info.runtime_version, 13000);
  EXPECT_GT(info.cupti_version, 0);
  EXPECT_FALSE(info.counter_permission.empty());
  ASSERT_FALSE(info.devices.empty());
  for (const auto& d : info.devices) {
    std::printf(
        "[ RESULT ] device %d: %s, cc %d.%d, %d SMs, %lld MiB, L2 %lld KiB, %lld kHz / "
        "%lld kHz, bus %s; driver %s, runtime %s, CUPTI %d, counters: %s\n",
        d.ordinal, d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count,
        static_cast<long long>(d.memory_bytes >> 20), static_cast<long long>(d.l2_bytes >> 10),
        static_cast<long long>(d.compute_clock_khz), static_cast<long long>(d.memory_clock_khz),
        d.pci_bus_id.c_str(), kprof::cuda_version_string(info.driver_version).c_str(),
        kprof::cuda_version_string(info.runtime_version).c_str(), info.cupti_version,
        info.counter_permission.c_str());
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.pci_bus_id.empty());
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.l2_bytes, 0);
    EXPECT_GT(d.compute_clock_khz, 0);
    EXPECT_GT(d.memory_clock_khz, 0);
  }
}

// One process per device, as the C++ API shares a sweep among GPUs: use_device picks the GPU a
// profile measures and its session records; an ordinal the driver does not show is NoGpuError.
TEST(System, UseDevicePicksTheProfiledGpu) {
  const int last = static_cast<int>(kprof::query_system().devices.size()) - 1;
  ASSERT_GE(last, 0);
  kprof::use_device(last);
  kprof::demo::Kernels kernels(1024);
  auto results = kprof::profile(duration_options(kprof::CacheControl::all, 1), [&] {
    kprof::Annotation a("scale");
    kernels.scale(1024);
  });
  EXPECT_EQ(results.session().device, last);
  EXPECT_THROW(kprof::use_device(last + 1), kprof::NoGpuError);
  EXPECT_THROW(kprof::use_device(-1), kprof::NoGpuError);
  kprof::use_device(0);
}

TEST(System, SessionInfoDescribesTheBackend) {
  kprof::demo::Kernels kernels(1024);
  auto results = kprof::profile(duration_options(kprof::CacheControl::all, 1), [&] {
    kprof::Annotation a("scale");
    kernels.scale(1024);
  });
  const kprof::SessionInfo& s = results.session();
  EXPECT_FALSE(s.gpu.empty());
  EXPECT_GE(s.device, 0);
  EXPECT_EQ(s.backend, "cupti-activity");
  EXPECT_EQ(s.cache_control, "all");
  EXPECT_EQ(s.clock_control, "none");
  EXPECT_EQ(s.replay_mode, "kernel");
  EXPECT_EQ(s.passes, 1);
  EXPECT_GT(s.compute_clock_khz, 0);
  EXPECT_EQ(s.cuda_runtime_version, "13.0");
  EXPECT_FALSE(s.cupti_version.empty());
  EXPECT_EQ(s.started_at.size(), 20u) << s.started_at;
}

TEST(System, DemoKernelsRunAndCheckSizes) {
  kprof::demo::Kernels kernels(1 << 20);
  kernels.scale(1 << 20);
  kernels.add(1 << 20);
  kernels.fma(1 << 20, 64);
  kernels.spin(10);
  kernels.synchronize();
  EXPECT_THROW(kernels.scale((1 << 20) + 1), kprof::OptionError);
}

}  // namespace
}  // namespace kprof_test
