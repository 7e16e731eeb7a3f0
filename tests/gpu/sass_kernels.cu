// Kernels whose FP32, FP64 and FP16 instruction counts are known: each thread runs kSassIters
// iterations of one instruction kind, so a class's count is threads x iterations exactly.
#include <cuda_fp16.h>

#include "sass_kernels.hpp"

namespace kprof_test {
namespace {

__device__ float ffma_loop(float a, float b) {
  float x = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < kSassIters; ++i) x = fmaf(x, a, b);
  return x;
}

__global__ void sass_ffma(float* out, float a, float b) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = ffma_loop(a, b);
}

__global__ void sass_timed_ffma(float* out, float a, float b) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = ffma_loop(a, b);
}

__global__ void sass_fadd_fmul(float* out, float a, float b) {
  float x = threadIdx.x, y = blockIdx.x;
#pragma unroll 1
  for (int i = 0; i < kSassIters; ++i) {
    x = __fadd_rn(x, a);
    y = __fmul_rn(y, b);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

__global__ void sass_dfma(double* out, double a, double b) {
  double x = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < kSassIters; ++i) x = fma(x, a, b);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void sass_hfma2(__half2* out, __half2 a, __half2 b) {
  __half2 x = __floats2half2_rn(threadIdx.x, blockIdx.x);
#pragma unroll 1
  for (int i = 0; i < kSassIters; ++i) x = __hfma2(x, a, b);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

}  // namespace

void launch_sass(SassKernel which, void* out) {
  const dim3 grid(kSassBlocks), block(kSassThreads);
  switch (which) {
    case SassKernel::ffma:
      sass_ffma<<<grid, block>>>(static_cast<float*>(out), 1.0001f, 0.5f);
      break;
    case SassKernel::fadd_fmul:
      sass_fadd_fmul<<<grid, block>>>(static_cast<float*>(out), 0.5f, 1.0001f);
      break;
    case SassKernel::dfma:
      sass_dfma<<<grid, block>>>(static_cast<double*>(out), 1.0001, 0.5);
      break;
    case SassKernel::timed_ffma:
      sass_timed_ffma<<<grid, block>>>(static_cast<float*>(out), 1.0001f, 0.5f);
      break;
    case SassKernel::hfma2:
      sass_hfma2<<<grid, block>>>(static_cast<__half2*>(out), __floats2half2_rn(1.f, 1.f),
                                  __floats2half2_rn(0.5f, 0.5f));
      break;
  }
  check(cudaGetLastError(), "launch_sass");
}

}  // namespace kprof_test
