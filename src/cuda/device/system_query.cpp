// query_system(): what this machine offers, reported (never thrown) when something is missing.
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>

#include <filesystem>
#include <string>

#include "core/measure/gpu_layer.hpp"
#include "cuda/cupti/counter_permission.hpp"
#include "cuda/device/cuda_check.hpp"
#include "cuda/device/device_facts.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"

namespace kprof {
namespace {

// The devices, or the reason there are none in `info.driver_error`.
void add_devices(SystemInfo& info) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    info.driver_error = detail::is_no_gpu_error(error)
                            ? detail::no_gpu_message(error, "cudaGetDeviceCount")
                            : "cudaGetDeviceCount failed: " + detail::cuda_error_text(error);
    return;
  }
  if (count == 0) info.driver_error = "the NVIDIA driver found no CUDA device";
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    try {
      info.devices.push_back(detail::read_device_info(ordinal));
    } catch (const std::exception& e) {
      info.driver_error += std::string(info.driver_error.empty() ? "" : "; ") + "device " +
                           std::to_string(ordinal) + ": " + e.what();
    }
  }
}

// The library that defines cuptiGetVersion: where the loader found libcupti.so for this process.
std::string cupti_path() {
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &where) == 0 || where.dli_fname == nullptr)
    return "";
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::canonical(where.dli_fname, ec);
  return ec ? std::string(where.dli_fname) : path.string();
}

}  // namespace

SystemInfo query_system() {
  SystemInfo info;
  info.built_with_cuda = true;
  try {
    info.host = detail::host_name();
    info.counter_permission = detail::counter_permission();
    (void)cudaRuntimeGetVersion(&info.runtime_version);
    uint32_t cupti = 0;
    if (cuptiGetVersion(&cupti) == CUPTI_SUCCESS) info.cupti_version = static_cast<int>(cupti);
    info.cupti_path = cupti_path();
    info.flop_counting = detail::flop_counting_unavailable();
    // cudaDriverGetVersion reports 0, with success, when no driver can be loaded.
    if (cudaDriverGetVersion(&info.driver_version) != cudaSuccess) info.driver_version = 0;
    info.driver_loaded = info.driver_version > 0;
    add_devices(info);
    if (!info.driver_loaded && info.driver_error.empty()) {
      info.driver_error = "libcuda.so.1 (the NVIDIA driver) could not be loaded";
    }
  } catch (const std::exception& e) {
    info.driver_error = std::string("query failed: ") + e.what();
  }
  return info;
}

void use_device(int ordinal) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || ordinal < 0 || ordinal >= count)
    throw NoGpuError(std::string(kNoGpuAvailable) + "no CUDA device " + std::to_string(ordinal) +
                     " (" + std::to_string(count) + " visible)");
  detail::check_cuda(cudaSetDevice(ordinal), "cudaSetDevice");
}

}  // namespace kprof
