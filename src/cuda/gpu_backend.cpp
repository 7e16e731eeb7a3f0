// make_gpu_backend: which backend measures the options, after checking this build can.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "api/gpu.hpp"
#include "cuda/activity_backend.hpp"
#include "cuda/cuda_check.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

std::string quoted_list(const std::vector<std::string>& names) {
  std::string text = "{";
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i ? ", \"" : "\"") + names[i] + "\"";
  }
  return text + "}";
}

[[noreturn]] void unsupported(const std::string& option, const std::string& value) {
  throw UnsupportedError(option + " = " + value +
                         " is not supported: this build measures kernel durations only (" +
                         std::string(kDurationMetric) +
                         ", replay_mode=kernel); hardware counters (range "
                         "profiler) are not available in this version");
}

// The duration backend measures one metric, one pass, with clocks as they are.
void check_supported(const Options& options) {
  if (options.metrics.size() != 1 || options.metrics.front() != kDurationMetric) {
    unsupported("metrics", quoted_list(options.metrics));
  }
  if (options.replay_mode != ReplayMode::kernel) {
    unsupported("replay_mode", to_string(options.replay_mode));
  }
}

void require_gpu() {
  int count = 0;
  check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count == 0) throw NoGpuError(no_gpu_message(cudaErrorNoDevice, "cudaGetDeviceCount"));
}

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(const Options& options) {
  check_supported(options);  // an invalid request fails before any GPU work
  require_gpu();
  return std::make_unique<ActivityBackend>(options);
}

}  // namespace kprof::detail
