// query_system() in a build without CUDA: says so, never throws.
#include <unistd.h>

#include <string>

#include "core/gpu_layer.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"

namespace kprof {

std::string cuda_version_string(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

SystemInfo query_system() {
  SystemInfo info;
  info.built_with_cuda = false;
  info.driver_loaded = false;
  info.driver_error = "kprof was built without CUDA support; rebuild with the CUDA toolkit";
  char host[256] = {};
  info.host = gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0' ? host : "unknown";
  info.counter_permission = "unknown (kprof was built without CUDA support)";
  info.flop_counting = detail::flop_counting_unavailable();
  return info;
}

void use_device(int ordinal) {
  throw NoGpuError(std::string(kNoGpuAvailable) + "kprof was built without CUDA (device " +
                   std::to_string(ordinal) + ")");
}

}  // namespace kprof
