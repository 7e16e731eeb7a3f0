#include "cuda/cupti/launch_statistics.hpp"

#include <cuda_occupancy.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

#include "cuda/device/cuda_check.hpp"
#include "kprof/metrics.hpp"

namespace kprof::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Occupancy {
  int blocks_per_sm = 0;
  int limit_blocks = 0, limit_registers = 0, limit_shared = 0, limit_warps = 0;
};

int attribute(cudaDeviceAttr what, int ordinal) {
  int value = 0;
  check_cuda(cudaDeviceGetAttribute(&value, what, ordinal), "cudaDeviceGetAttribute");
  return value;
}

cudaOccDeviceProp occ_device(const OccupancyDevice& d) {
  cudaOccDeviceProp p;
  p.computeMajor = d.cc_major;
  p.computeMinor = d.cc_minor;
  p.maxThreadsPerBlock = d.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  p.regsPerBlock = d.regs_per_block;
  p.regsPerMultiprocessor = d.regs_per_sm;
  p.warpSize = d.warp_size;
  p.sharedMemPerBlock = d.shared_per_block;
  p.sharedMemPerMultiprocessor = d.shared_per_sm;
  p.numSms = d.sm_count;
  p.sharedMemPerBlockOptin = d.shared_per_block_optin;
  p.reservedSharedMemPerBlock = d.reserved_shared_per_block;
  return p;
}

// The calculator's answer for the launch. The shared memory per SM it assumes is the one the
// driver configured for the launch (the record's sharedMemoryExecuted), given as the carveout
// in whole percent, rounded down, which the calculator rounds up to that configuration again.
std::optional<Occupancy> occupancy(const LaunchShape& l, const OccupancyDevice& d) {
  const std::int64_t block = l.block[0] * l.block[1] * l.block[2];
  if (block <= 0 || block > std::numeric_limits<int>::max()) return std::nullopt;
  const cudaOccDeviceProp prop = occ_device(d);
  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = d.max_threads_per_block;
  attr.numRegs = l.registers_per_thread;
  attr.sharedSizeBytes = static_cast<std::size_t>(l.static_shared);
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;  // the launch ran, so its size was allowed
  attr.maxDynamicSharedSizeBytes = d.shared_per_block_optin;
  attr.numBlockBarriers = 1;
  cudaOccDeviceState state;
  if (d.shared_per_sm > 0 && l.shared_config >= 0)
    state.carveoutConfig = static_cast<int>(std::min<std::int64_t>(
        100, l.shared_config * 100 / static_cast<std::int64_t>(d.shared_per_sm)));
  cudaOccResult r;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, static_cast<int>(block),
                                              static_cast<std::size_t>(l.dynamic_shared)) !=
      CUDA_OCC_SUCCESS)
    return std::nullopt;
  return Occupancy{r.activeBlocksPerMultiprocessor, r.blockLimitBlocks, r.blockLimitRegs,
                   r.blockLimitSharedMem, r.blockLimitWarps};
}

double limit(int blocks) {
  return blocks == std::numeric_limits<int>::max() ? kNaN : static_cast<double>(blocks);
}

// The value of launch statistic `name`; NaN when the occupancy cannot be had.
double value_of(std::string_view name, const LaunchShape& l, const OccupancyDevice& d,
                const std::optional<Occupancy>& occ) {
  const double grid = static_cast<double>(l.grid[0] * l.grid[1] * l.grid[2]);
  const double block = static_cast<double>(l.block[0] * l.block[1] * l.block[2]);
  if (name == "launch__grid_size") return grid;
  if (name == "launch__block_size") return block;
  if (name == "launch__thread_count") return grid * block;
  if (name == "launch__registers_per_thread") return l.registers_per_thread;
  if (name == "launch__shared_mem_per_block_static") return static_cast<double>(l.static_shared);
  if (name == "launch__shared_mem_per_block_dynamic") return static_cast<double>(l.dynamic_shared);
  if (name == "launch__shared_mem_per_block_driver")
    return static_cast<double>(d.reserved_shared_per_block);
  if (name == "launch__shared_mem_config_size") return static_cast<double>(l.shared_config);
  if (name == "launch__sm_count") return d.sm_count;
  if (!occ) return kNaN;
  if (name == "launch__occupancy_limit_blocks") return limit(occ->limit_blocks);
  if (name == "launch__occupancy_limit_registers") return limit(occ->limit_registers);
  if (name == "launch__occupancy_limit_shared_mem") return limit(occ->limit_shared);
  if (name == "launch__occupancy_limit_warps") return limit(occ->limit_warps);
  const double resident = static_cast<double>(occ->blocks_per_sm) * d.sm_count;
  if (name == "launch__waves_per_multiprocessor") return resident > 0 ? grid / resident : kNaN;
  if (name == "sm__maximum_warps_per_active_cycle_pct") {
    const double warps_per_block = std::ceil(block / d.warp_size);
    const double max_warps = static_cast<double>(d.max_threads_per_sm) / d.warp_size;
    return max_warps > 0 ? 100.0 * occ->blocks_per_sm * warps_per_block / max_warps : kNaN;
  }
  return kNaN;
}

}  // namespace

const OccupancyDevice& occupancy_device(int ordinal) {
  static std::mutex mutex;
  static std::map<int, OccupancyDevice> devices;
  std::lock_guard lock(mutex);
  const auto it = devices.find(ordinal);
  if (it != devices.end()) return it->second;
  OccupancyDevice d;
  d.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, ordinal);
  d.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, ordinal);
  d.sm_count = attribute(cudaDevAttrMultiProcessorCount, ordinal);
  d.warp_size = attribute(cudaDevAttrWarpSize, ordinal);
  d.max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock, ordinal);
  d.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, ordinal);
  d.regs_per_block = attribute(cudaDevAttrMaxRegistersPerBlock, ordinal);
  d.regs_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor, ordinal);
  d.shared_per_block = attribute(cudaDevAttrMaxSharedMemoryPerBlock, ordinal);
  d.shared_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal);
  d.shared_per_block_optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal);
  d.reserved_shared_per_block = attribute(cudaDevAttrReservedSharedMemoryPerBlock, ordinal);
  return devices.emplace(ordinal, d).first->second;
}

std::vector<MetricValue> launch_values(const LaunchShape& launch, const OccupancyDevice& device,
                                       const std::vector<std::string>& wanted) {
  std::vector<MetricValue> out;
  std::optional<std::optional<Occupancy>> occ;  // computed when first needed
  for (const std::string& name : wanted) {
    const auto& all = metrics::launch_metrics();
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const metrics::LaunchMetric& m) { return m.name == name; });
    if (it == all.end()) continue;
    if (!occ) occ = occupancy(launch, device);
    out.push_back({name, value_of(name, launch, device, *occ), std::string(it->unit)});
  }
  return out;
}

void add_launch_values(std::vector<MetricValue>& values, const LaunchShape& launch,
                       const std::vector<std::string>& wanted) {
  if (wanted.empty()) return;
  for (MetricValue& v :
       launch_values(launch, occupancy_device(static_cast<int>(launch.device)), wanted))
    values.push_back(std::move(v));
}

}  // namespace kprof::detail
