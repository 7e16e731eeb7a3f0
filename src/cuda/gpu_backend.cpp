// make_gpu_backend: the one place that chooses how `options` are measured, after checking this
// build can.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "api/gpu.hpp"
#include "cuda/activity_timing.hpp"
#include "cuda/application_replay.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/kernel_replay.hpp"
#include "cuda/range_replay.hpp"
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
  require_gpu();
  if (activity_records_measure(options)) return std::make_unique<ActivityTiming>(options);
  switch (options.replay_mode) {
    case ReplayMode::kernel:
      return std::make_unique<KernelReplay>(options);
    case ReplayMode::range:
      return std::make_unique<RangeReplay>(options);
    case ReplayMode::application:
      return std::make_unique<ApplicationReplay>(options);
  }
  throw UnsupportedError("replay_mode='" + to_string(options.replay_mode) +
                         "' has no backend in this build");
}

}  // namespace kprof::detail
