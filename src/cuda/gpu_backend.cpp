// make_gpu_backend: which backend measures the options, after checking this build can.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "api/gpu.hpp"
#include "cuda/activity_backend.hpp"
#include "cuda/counter_backend.hpp"
#include "cuda/cuda_check.hpp"
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
  if (activity_records_measure(options)) return std::make_unique<ActivityBackend>(options);
  return std::make_unique<CounterBackend>(options);
}

}  // namespace kprof::detail
