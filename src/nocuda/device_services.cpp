// make_device_services in a build without CUDA: nothing to read or set. Never reached by a
// profile (make_gpu_backend throws first); defined so the library links.
#include "core/measure/gpu_layer.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

DeviceServices make_device_services(const Options& /*options*/) {
  DeviceServices s;
  s.device_unavailable = kBuiltWithoutCuda;
  s.thermal_unavailable = s.device_unavailable;
  s.clocks_unavailable = s.device_unavailable;
  return s;
}

}  // namespace kprof::detail
