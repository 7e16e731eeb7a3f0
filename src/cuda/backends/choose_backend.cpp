// make_gpu_backend: the one place that chooses how `options` are measured, after checking this
// build can. The duration alone in kernel replay comes from activity records; anything else
// from the backend registered for the replay mode (kernel_replay.cpp, range_replay.cpp,
// application_replay.cpp).
#include <cuda_runtime_api.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "core/measure/backend_registry.hpp"
#include "core/measure/gpu_layer.hpp"
#include "cuda/backends/activity_timing.hpp"
#include "cuda/device/cuda_check.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

void require_gpu() {
  int count = 0;
  check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count == 0) throw NoGpuError(no_gpu_message(cudaErrorNoDevice, "cudaGetDeviceCount"));
}

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(const Options& options) {
  if (options.replay_mode == ReplayMode::automatic)
    throw std::logic_error("make_gpu_backend: replay_mode='auto' is resolved by profile() first");
  require_gpu();
  if (activity_records_measure(options)) return std::make_unique<ActivityTiming>();
  return make_registered_backend(options);
}

}  // namespace kprof::detail
