// The SM clock measured by the GPU itself: a one-thread kernel counts SM cycles (clock64)
// against the global timer (%globaltimer, ns) over a short spin, as NVBench measures the clock
// its kernels ran at. kprof uses it where NVML cannot read the clock (on the H200 VM of
// docs/validation.md NVML answered 0 MHz inside profiled processes).
#pragma once

#include <optional>

namespace kprof::detail {

class ClockProbe {
 public:
  // Allocates the probe's result buffer on the current device. Throws CudaError.
  ClockProbe();
  ~ClockProbe();
  ClockProbe(const ClockProbe&) = delete;
  ClockProbe& operator=(const ClockProbe&) = delete;

  // Runs the probe on the default stream, after the work already queued there, and waits for
  // it: the clock in kHz, or nothing when the probe failed. Never throws.
  std::optional<double> measure_khz() noexcept;

 private:
  unsigned long long* result_ = nullptr;  // device: elapsed ns, elapsed cycles
};

}  // namespace kprof::detail
