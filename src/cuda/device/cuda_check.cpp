#include "cuda/device/cuda_check.hpp"

#include "core/measure/gpu_layer.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

bool is_no_gpu_error(cudaError_t error) noexcept {
  switch (error) {
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
    case cudaErrorStubLibrary:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return true;
    default:
      return false;
  }
}

bool is_sticky_error(cudaError_t error) noexcept {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

std::string gpu_fault() noexcept {
  const cudaError_t error = cudaDeviceSynchronize();
  return is_sticky_error(error) ? cuda_error_text(error) : std::string();
}

void wait_for_gpu() noexcept { (void)cudaDeviceSynchronize(); }

std::string cuda_error_text(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

std::string no_gpu_message(cudaError_t error, const char* call) {
  std::string what;
  switch (error) {
    case cudaErrorInsufficientDriver:
      what = "the NVIDIA driver (libcuda.so.1) is missing or older than this CUDA runtime needs";
      break;
    case cudaErrorNoDevice:
      what = "the NVIDIA driver found no CUDA device (check CUDA_VISIBLE_DEVICES)";
      break;
    case cudaErrorStubLibrary:
      what = "the CUDA driver loaded is a stub library, not a real driver";
      break;
    case cudaErrorDevicesUnavailable:
      what = "every CUDA device is busy or unavailable (exclusive compute mode?)";
      break;
    default:
      what = "the CUDA driver cannot be used";
      break;
  }
  return std::string(kNoGpuAvailable) + what + " (" + cudaGetErrorName(error) + " from " + call +
         ")";
}

void check_cuda(cudaError_t error, const char* call) {
  if (error == cudaSuccess) return;
  if (is_no_gpu_error(error)) throw NoGpuError(no_gpu_message(error, call));
  if (is_sticky_error(error))
    throw GpuFaultError(std::string(call) + " failed: " + cuda_error_text(error));
  throw CudaError(std::string(call) + " failed: " + cuda_error_text(error));
}

int current_device() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

}  // namespace kprof::detail
