#include "cuda/device/driver_api.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <mutex>
#include <string>

#include "cuda/device/cuda_check.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// The CUDA version whose ABI of each function we ask for: the one kprof is compiled against
// (13000 for 13.0; CUDA 12 builds ask for their own).
constexpr unsigned int kDriverAbiVersion = CUDA_VERSION;

template <typename Fn>
void resolve(const char* symbol, Fn& fn) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSuccess;
#if CUDART_VERSION >= 12050
  check_cuda(cudaGetDriverEntryPointByVersion(symbol, &address, kDriverAbiVersion,
                                              cudaEnableDefault, &status),
             "cudaGetDriverEntryPointByVersion");
#else  // before 12.5, the entry point of the runtime's own CUDA version
  check_cuda(cudaGetDriverEntryPoint(symbol, &address, cudaEnableDefault, &status),
             "cudaGetDriverEntryPoint");
#endif
  if (status != cudaDriverEntryPointSuccess || address == nullptr) {
    throw CudaError(std::string("the CUDA driver does not provide ") + symbol + " for CUDA " +
                    std::to_string(kDriverAbiVersion / 1000) + "." +
                    std::to_string(kDriverAbiVersion % 1000 / 10) + " (driver too old?)");
  }
  fn = reinterpret_cast<Fn>(address);
}

DriverApi load() {
  DriverApi api;
  resolve("cuMemsetD8Async", api.memset_d8_async);
  resolve("cuLaunchKernel", api.launch_kernel);
  resolve("cuStreamIsCapturing", api.stream_is_capturing);
  resolve("cuCtxGetCurrent", api.ctx_get_current);
  resolve("cuGetErrorName", api.get_error_name);
  resolve("cuPointerGetAttribute", api.pointer_get_attribute);
  return api;
}

std::mutex g_mutex;
DriverApi g_api;
std::atomic<bool> g_loaded{false};

}  // namespace

const DriverApi& driver_api() {
  // Not std::call_once: a failed load (no driver yet) must be retried by the next caller.
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_loaded.load(std::memory_order_relaxed)) {
    g_api = load();
    g_loaded.store(true, std::memory_order_release);
  }
  return g_api;
}

const char* driver_error_name(CUresult result) noexcept {
  const char* name = nullptr;
  if (g_loaded.load(std::memory_order_acquire) && g_api.get_error_name != nullptr &&
      g_api.get_error_name(result, &name) == CUDA_SUCCESS && name != nullptr) {
    return name;
  }
  return "CUDA driver error";
}

}  // namespace kprof::detail
