// The SM clock measured by the GPU itself: a one-thread kernel counts SM cycles (clock64)
// against the global timer (%globaltimer, ns) over a short spin, as NVBench measures the clock
// its kernels ran at. kprof uses it where NVML cannot read the clock (on the H200 VM of
// docs/validation.md NVML answered 0 MHz inside profiled processes).
#pragma once

#include <optional>

namespace kprof::detail {

// Runs the probe on the default stream of the current context, after the work already queued
// there, and waits for it: the clock in kHz, or nothing when the probe failed. Its result
// buffer is kept per context (kept_buffer). Never throws.
std::optional<double> probe_sm_clock_khz() noexcept;

}  // namespace kprof::detail
