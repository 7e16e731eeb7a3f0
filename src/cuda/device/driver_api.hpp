// The few CUDA driver functions kprof calls, reached through the runtime's entry-point query.
//
// kprof never links libcuda: the build machine and CI have none (not even a stub), and a
// library that needs libcuda.so.1 at load time could not even be imported on a machine without
// a driver. The statically linked runtime loads the driver on first use; its
// cudaGetDriverEntryPointByVersion hands out the driver functions below.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

namespace kprof::detail {

struct DriverApi {
  PFN_cuMemsetD8Async_v3020 memset_d8_async = nullptr;
  PFN_cuLaunchKernel_v4000 launch_kernel = nullptr;
  PFN_cuStreamIsCapturing_v10000 stream_is_capturing = nullptr;
  PFN_cuCtxGetCurrent_v4000 ctx_get_current = nullptr;
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  PFN_cuPointerGetAttribute_v4000 pointer_get_attribute = nullptr;
};

// Resolves the functions once per process (thread-safe). Throws NoGpuError without a driver,
// CudaError when the driver lacks one of them.
const DriverApi& driver_api();

// "CUDA_ERROR_INVALID_VALUE" (or the number when the name is unknown). Never throws.
const char* driver_error_name(CUresult result) noexcept;

}  // namespace kprof::detail
