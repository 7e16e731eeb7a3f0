// The launch statistics of one kernel (kprof::metrics::launch_metrics): its launch as the
// activity record gives it, with the device's attributes and CUDA's occupancy calculator
// (cuda_occupancy.h, the calculator Nsight Compute's Occupancy section follows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/measure/backend.hpp"

namespace kprof::detail {

// A kernel's launch, from its activity record.
struct LaunchShape {
  std::int64_t grid[3] = {0, 0, 0};
  std::int64_t block[3] = {0, 0, 0};
  int registers_per_thread = 0;
  std::int64_t static_shared = 0;   // bytes per block
  std::int64_t dynamic_shared = 0;  // bytes per block
  std::int64_t shared_config = 0;   // bytes per SM the driver configured (sharedMemoryExecuted)
  std::uint32_t device = 0;
};

// What the occupancy calculator needs of a device.
struct OccupancyDevice {
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int regs_per_block = 0;
  int regs_per_sm = 0;
  std::size_t shared_per_block = 0;
  std::size_t shared_per_sm = 0;
  std::size_t shared_per_block_optin = 0;
  std::size_t reserved_shared_per_block = 0;
};

// The attributes of CUDA device `ordinal`, read once per process. Throws CudaError.
const OccupancyDevice& occupancy_device(int ordinal);

// The values of the launch statistics among `wanted` (other names are skipped), in the order
// of `wanted`. Pure arithmetic: no GPU call.
std::vector<MetricValue> launch_values(const LaunchShape& launch, const OccupancyDevice& device,
                                       const std::vector<std::string>& wanted);

// launch_values() on the launch's own device, appended to `values`; nothing (and no device
// query) when `wanted` is empty. Throws CudaError when the device cannot be queried.
void add_launch_values(std::vector<MetricValue>& values, const LaunchShape& launch,
                       const std::vector<std::string>& wanted);

}  // namespace kprof::detail
