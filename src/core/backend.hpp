// The interface between the sweep engine and whatever measures the GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/region_tracker.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

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
  std::uint64_t order = 0;      // orders kernels of one region: GPU start time in ns
  std::vector<MetricValue> values;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Device, clocks, versions and backend name for SessionInfo. Throws NoGpuError.
  virtual SessionInfo describe() = 0;
  // Prepares measuring (subscribes to CUPTI, allocates the L2 flush buffer...). Throws
  // NoGpuError, CuptiBusyError, CudaError. After start() returns, stop() must be called.
  virtual void start(const Options& options) = 0;
  // Waits for the GPU and returns every measurement completed since the previous call.
  virtual std::vector<Measurement> collect() = 0;
  // Releases everything start() took. Never throws; safe to call twice.
  virtual void stop() noexcept = 0;
};

}  // namespace kprof::detail
