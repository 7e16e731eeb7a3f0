// The launch statistics kprof provides (kprof::metrics::launch_metrics): names, units and
// descriptions. Pure data: works in every build; the values come from src/cuda
// (launch_statistics.cpp).
#include <algorithm>
#include <string>
#include <vector>

#include "core/metrics/sass_opcodes.hpp"
#include "kprof/metrics.hpp"

namespace kprof::metrics {

const std::vector<LaunchMetric>& launch_metrics() {
  static const std::vector<LaunchMetric> all = {
      {"launch__grid_size", "block", "Blocks in the grid (gridDim.x * gridDim.y * gridDim.z)"},
      {"launch__block_size", "thread", "Threads in a block (blockDim.x * blockDim.y * blockDim.z)"},
      {"launch__thread_count", "thread", "Threads of the launch: grid size times block size"},
      {"launch__registers_per_thread", "register/thread", "Registers each thread uses"},
      {"launch__shared_mem_per_block_static", "B",
       "Shared memory per block declared in the kernel (__shared__ arrays)"},
      {"launch__shared_mem_per_block_dynamic", "B",
       "Shared memory per block given at launch (the third <<<>>> argument)"},
      {"launch__shared_mem_per_block_driver", "B",
       "Shared memory per block the driver reserves for itself"},
      {"launch__shared_mem_config_size", "B",
       "Shared memory per SM the driver configured for this launch (its share of the unified "
       "L1/shared memory)"},
      {"launch__sm_count", "SM", "Streaming multiprocessors the launch could use"},
      {"launch__waves_per_multiprocessor", "",
       "Grid size over the blocks all SMs hold at once: below 1 leaves SMs idle, and a fraction "
       "above a whole number is a partial last wave"},
      {"launch__occupancy_limit_blocks", "block",
       "Blocks an SM can hold by its limit on resident blocks"},
      {"launch__occupancy_limit_registers", "block",
       "Blocks an SM can hold by the registers the kernel uses"},
      {"launch__occupancy_limit_shared_mem", "block",
       "Blocks an SM can hold by the shared memory a block uses"},
      {"launch__occupancy_limit_warps", "block",
       "Blocks an SM can hold by its limit on resident warps"},
      {"sm__maximum_warps_per_active_cycle_pct", "%",
       "Theoretical occupancy: the warps an SM can hold for this launch (the lowest occupancy "
       "limit times the warps of a block), in % of the warps it can hold at most"},
  };
  return all;
}

bool is_launch_metric(std::string_view name) {
  const auto& all = launch_metrics();
  return std::any_of(all.begin(), all.end(), [&](const LaunchMetric& m) { return m.name == name; });
}

std::vector<std::string> counter_metrics(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names)
    if (!is_launch_metric(n) && !is_sampled_metric(n) &&
        kprof::detail::flop_class_counted_by(n) == kprof::detail::FlopClass::none)
      out.push_back(n);
  return out;
}

std::vector<std::string> launch_metrics_in(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names)
    if (is_launch_metric(n)) out.push_back(n);
  return out;
}

}  // namespace kprof::metrics
