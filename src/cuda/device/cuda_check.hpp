// CUDA runtime errors -> kprof's typed errors.
//
// A missing driver or device is not a bug of the caller: it becomes NoGpuError with one sentence
// that says what is missing; a kernel's fault that costs the context becomes GpuFaultError. Every
// other failure becomes CudaError naming the call.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kprof::detail {

// True for the errors that mean "this process cannot use a GPU at all".
bool is_no_gpu_error(cudaError_t error) noexcept;

// "cudaErrorNoDevice: no CUDA-capable device is detected".
std::string cuda_error_text(cudaError_t error);

// One sentence for a NoGpuError: what is missing, the error and the call that found out.
std::string no_gpu_message(cudaError_t error, const char* call);

// True for the errors after which the context is lost: every later call returns them too.
bool is_sticky_error(cudaError_t error) noexcept;

// Throws NoGpuError, GpuFaultError (a sticky error) or CudaError when `error` is not
// cudaSuccess.
void check_cuda(cudaError_t error, const char* call);

// The calling thread's current CUDA device. Throws as check_cuda.
int current_device();

}  // namespace kprof::detail
