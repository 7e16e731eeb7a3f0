// NVML on a real GPU: the profiled device found by PCI bus id, its readings, the conditions a
// profile records, the stopping rule and the thermal guard on real kernels. Reads only: no test
// locks or resets the clocks of the lent GPU (they are not ours to change; clock locking is
// tested with an injected setter in tests/unit/test_clock_lock.cpp).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/measure/gpu_layer.hpp"
#include "cuda/device/clock_probe.hpp"
#include "cuda/device/nvml.hpp"
#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"
#include "test_kernels.hpp"

namespace kprof_test {
namespace {

kprof::Options nvml_options() {
  kprof::Options o = duration_options(kprof::CacheControl::all, 5);
  o.thermal_mode = kprof::ThermalMode::automatic;
  return o;
}

TEST(Nvml, FindsTheProfiledDeviceByPciBusIdAndReadsIt) {
  ASSERT_EQ(kprof::detail::nvml::load_error(), "");
  check(cudaFree(nullptr), "cudaFree");
  auto services = kprof::detail::make_device_services(nvml_options());
  ASSERT_TRUE(services.device) << services.device_unavailable;
  EXPECT_FALSE(services.thermal);  // the profiled device is the one watched
  EXPECT_FALSE(services.clocks);   // only for clock_control=base
  // After a run (a 5 ms kernel still running): where NVML has no SM clock (the H200 VM), the
  // probe kernel measures it.
  kprof::demo::Kernels kernels(1024);
  kernels.spin(5000);
  const auto reading = services.device->read_after_run();
  ASSERT_TRUE(reading.sm_clock_khz.has_value());
  ASSERT_TRUE(reading.temperature_c.has_value());
  ASSERT_TRUE(reading.clock_event_reasons.has_value());
  const auto margin = services.device->margin_c();
  std::printf("[ RESULT ] NVML: SM clock %.0f MHz (%s), %d C, margin %s C, reasons 0x%llx\n",
              *reading.sm_clock_khz / 1000,
              reading.clock_from_kernel ? "probe kernel: NVML had none" : "NVML",
              *reading.temperature_c, margin ? std::to_string(*margin).c_str() : "n/a",
              static_cast<unsigned long long>(*reading.clock_event_reasons));
  EXPECT_GT(*reading.sm_clock_khz, 0);
  EXPECT_GT(*reading.temperature_c, 0);
  EXPECT_LT(*reading.temperature_c, 120);
}

// The probe kernel against the rated clock: a busy H200 runs at its rated 1980 MHz; an idle
// one ramps up within the probe's 30 us, so anything between 200 MHz and 1.2x rated is sane.
TEST(Nvml, AProbeKernelMeasuresTheSmClock) {
  check(cudaFree(nullptr), "cudaFree");
  kprof::demo::Kernels kernels(1024);
  kernels.spin(2000);  // keep the GPU busy: the probe runs right after
  const auto khz = kprof::detail::probe_sm_clock_khz();
  int rated = 0;
  check(cudaDeviceGetAttribute(&rated, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute");
  ASSERT_TRUE(khz.has_value());
  std::printf("[ RESULT ] probe kernel: SM clock %.0f MHz after a 2 ms kernel (rated %d MHz)\n",
              *khz / 1000, rated / 1000);
  EXPECT_GT(*khz, 200e3);
  EXPECT_LT(*khz, 1.2 * rated);
}

TEST(Nvml, AThermalDeviceThatDoesNotExistIsAnOptionError) {
  kprof::Options o = nvml_options();
  o.thermal.device = 1000;
  EXPECT_THROW(kprof::detail::make_device_services(o), kprof::OptionError);
}

TEST(Nvml, ReadingsCostLittleNextToARun) {
  auto services = kprof::detail::make_device_services(nvml_options());
  ASSERT_TRUE(services.device);
  constexpr int kReads = 200;
  const auto us_each = [&](auto&& read) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kReads; ++i) (void)read();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
               .count() /
           kReads;
  };
  const double reading = us_each([&] { return services.device->read(); });
  const double margin = us_each([&] { return services.device->margin_c(); });
  std::printf(
      "[ RESULT ] NVML: a reading (clock, temperature, reasons) %.1f us, the margin %.1f us "
      "(paced to ~1%% of a profile's time)\n",
      reading, margin);
  EXPECT_LT(reading + margin, 5000);
}

// Each run's kernel lasts 2 ms, so the GPU is still busy when the run is read after it
// returns (a reading of an idle GPU gives no clock).
TEST(Conditions, AProfileRecordsTheClockTemperatureAndReasonsOfEveryRun) {
  kprof::demo::Kernels kernels(1024);
  auto results = kprof::profile(nvml_options(), [&] {
    kprof::Annotation a("spin");
    kernels.spin(2000);
  });
  ASSERT_EQ(results.run_info().size(), 5u);
  for (const auto& run : results.run_info()) {
    EXPECT_GT(run.sm_clock_khz, 0);
    EXPECT_FALSE(std::isnan(run.temperature_c));
    EXPECT_GE(run.clock_event_reasons, 0);
    EXPECT_TRUE(run.throttled.has_value());
  }
  const kprof::Row& row = duration_row(results, "spin");
  std::printf(
      "[ RESULT ] MeasuredClock %.0f MHz from %s (rated %lld MHz), %.1f C, %g throttled runs\n",
      row.measured_clock_khz / 1000, results.session().clock_source.c_str(),
      static_cast<long long>(results.session().compute_clock_khz / 1000), row.temperature_c,
      row.throttled_runs);
  EXPECT_GT(row.measured_clock_khz, 0);
  EXPECT_EQ(row.runs_done, 5);
  EXPECT_EQ(row.stopped_by, "runs");
  EXPECT_EQ(results.session().thermal_mode, "auto");
}

TEST(Conditions, TheStoppingRuleStopsARealKernel) {
  kprof::demo::Kernels kernels(1 << 24);
  kernels.scale(1 << 24);
  kernels.synchronize();
  kprof::Options o = nvml_options();
  o.stopping = kprof::StoppingRule{};
  auto results = kprof::profile(o, [&] {
    kprof::Annotation a("scale");
    kernels.scale(1 << 24);
  });
  const kprof::Row& row = duration_row(results, "scale");
  std::printf("[ RESULT ] runs=auto: %d runs, stopped by %s, +/-%.3f%% of the mean\n",
              row.runs_done, row.stopped_by.c_str(),
              100 * 0.5 * (row.ci95_upper - row.ci95_lower) / row.mean);
  EXPECT_GE(row.runs_done, 5);
  EXPECT_LE(row.runs_done, 100);
  if (row.stopped_by == "precision")
    EXPECT_LE(0.5 * (row.ci95_upper - row.ci95_lower), 0.01 * row.mean);
}

}  // namespace
}  // namespace kprof_test
