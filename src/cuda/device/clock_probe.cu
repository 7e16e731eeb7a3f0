#include <cuda_runtime.h>

#include "cuda/device/clock_probe.hpp"
#include "cuda/device/cuda_check.hpp"
#include "cuda/device/driver_api.hpp"
#include "cuda/device/kept_buffer.hpp"

// Outside any namespace and unmangled, like the L2 flush kernel: the name tells it apart in a
// trace.
//
// Spins one thread for `span_ns` of global time and counts the SM cycles meanwhile. The global
// timer ticks in steps of up to 1 us on some GPUs: a 30 us span keeps that error near 3%, well
// inside the 75% throttle threshold the clock is compared with.
extern "C" __global__ void kprof_clock_probe(unsigned long long* result,
                                             unsigned long long span_ns) {
  unsigned long long t0 = 0, t1 = 0;
  const long long c0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t0 < span_ns);
  const long long c1 = clock64();
  result[0] = t1 - t0;
  result[1] = static_cast<unsigned long long>(c1 - c0);
}

namespace kprof::detail {
namespace {
constexpr unsigned long long kSpanNs = 30'000;
}  // namespace

std::optional<double> probe_sm_clock_khz() noexcept {
  unsigned long long* result = nullptr;
  try {
    const DriverApi& driver = driver_api();
    CUcontext context = nullptr;
    if (driver.ctx_get_current(&context) != CUDA_SUCCESS || context == nullptr) return std::nullopt;
    result = reinterpret_cast<unsigned long long*>(
        kept_buffer(driver, context, KeptUse::clock_probe, 2 * sizeof(unsigned long long)));
  } catch (...) {
    (void)cudaGetLastError();  // the failed allocation's error is not the user's
    return std::nullopt;
  }
  kprof_clock_probe<<<1, 1>>>(result, kSpanNs);
  // A probe that did not run would read the kept buffer's last values as new ones.
  if (cudaGetLastError() != cudaSuccess) return std::nullopt;
  unsigned long long host[2] = {0, 0};
  if (cudaMemcpy(host, result, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess ||
      host[0] == 0) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  // cycles per ns = GHz; x 1e6 = kHz, the unit of ComputeClock.
  return 1e6 * static_cast<double>(host[1]) / static_cast<double>(host[0]);
}

}  // namespace kprof::detail
