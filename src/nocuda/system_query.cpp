// query_system() in a build without CUDA: says so, never throws.
#include <unistd.h>

#include <string>

#include "core/measure/gpu_layer.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"
#include "nocuda/no_gpu.hpp"

namespace kprof {

SystemInfo query_system() {
  SystemInfo info;
  info.built_with_cuda = false;
  info.driver_loaded = false;
  info.driver_error = detail::built_without_cuda_text();
  char host[256] = {};
  info.host = gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0' ? host : "unknown";
  info.counter_permission = "unknown (" + std::string(kBuiltWithoutCuda) + ")";
  info.flop_counting = detail::flop_counting_unavailable();
  return info;
}

void use_device(int ordinal) {
  throw NoGpuError(std::string(kNoGpuAvailable) + std::string(kBuiltWithoutCuda) + " (device " +
                   std::to_string(ordinal) + ")");
}

}  // namespace kprof
