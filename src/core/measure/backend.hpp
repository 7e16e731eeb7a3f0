// One way of measuring the GPU: a backend. Each of kprof's ways (activity timing; hardware
// counters in kernel, range or application replay) is one class that owns its sessions and its
// loop over configs, runs and passes (measure()), as NVBench's measure_cold and measure_cupti
// each own theirs. The engine around it (SweepRuns) runs the benchmark with its measurement
// conditions and turns what the backend hands it into records; it knows no CUPTI protocol.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/measure/region_tracker.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

class SweepRuns;

struct MetricValue {
  std::string metric;
  double value = 0;
  std::string unit;
};

// One kernel (or, in range replay, one region) measured by a backend.
struct Measurement {
  RegionId region = kNoRegion;  // innermost region open at launch
  std::string kernel;           // demangled name
  std::string mangled;          // as the driver knows it; may equal `kernel`
  std::uint64_t order = 0;      // orders kernels of one region: GPU start time or launch order
  std::vector<MetricValue> values;
  // The values hold for the region as a whole, nested regions included (a user range of the
  // range profiler): they are not added to the enclosing regions.
  bool whole_region = false;
  // The SM clock the kernel ran at, when the backend measured it (counter
  // gpc__cycles_elapsed.avg.per_second); NaN otherwise.
  double sm_clock_hz = std::numeric_limits<double>::quiet_NaN();
  // GPU start and end (CUPTI timestamps, ns) and stream, where the backend has them; else -1.
  std::int64_t start_ns = -1;
  std::int64_t end_ns = -1;
  std::int64_t stream = -1;
  std::string kind = kKernelKind;  // Record::kind: a kernel, a copy or a memset
  std::int64_t bytes = -1;         // bytes a copy or memset moved
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Device, clocks, versions, backend name and passes for SessionInfo. Throws NoGpuError.
  virtual SessionInfo describe() = 0;
  // Prepares measuring (subscribes to CUPTI, allocates the L2 flush buffer...). Throws
  // NoGpuError, CuptiBusyError, CudaError. After start() returns, stop() must be called.
  virtual void start(const Options& options) = 0;
  // Measures the whole sweep in this backend's order: runs the benchmark through `runs`
  // (configs x runs, or passes x runs) and hands it every measurement (SweepRuns::collect).
  virtual void measure(SweepRuns& runs) = 0;
  // After measure() failed: what was measured and not yet handed over. May throw: the GPU may
  // be what failed.
  virtual std::vector<Measurement> salvage() = 0;
  // Releases everything start() took, but what it keeps for the calls that follow the profile
  // (release()). Never throws; safe to call twice.
  virtual void stop() noexcept = 0;
  // Gives back what stop() kept: called after the overhead disclosure's unprofiled calls (and by
  // the backend's destructor). The counter backends keep the range profiler enabled, idle, until
  // then: the first kernel launches after its disable are slow (H200: ~0.17 ms, then ~0.1 ms for
  // each module's first), and would be counted as the function's own time unprofiled. Never
  // throws; safe to call twice.
  virtual void release() noexcept {}
  // Wall time the last profile spent inside CUPTI's range profiler (SessionInfo); NaN for a
  // backend without it. Valid after stop().
  virtual double profiler_seconds() const { return std::numeric_limits<double>::quiet_NaN(); }
};

}  // namespace kprof::detail
