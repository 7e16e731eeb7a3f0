// Kernels whose dominant stall reason is known by construction (stall_kernels.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "stall_kernels.hpp"

namespace kprof_test {
namespace {

constexpr int kChaseSteps = 400;
constexpr int kBarrierIters = 4000;
constexpr int kFmaIters = 200000;

// Every load waits on the one before. Written on one line, whose number kChaseLoadLine is, for
// the source-correlation test.
// clang-format off
__device__ unsigned chase(const unsigned* next, unsigned i) { for (int s = 0; s < kChaseSteps; ++s) i = next[i]; return i; } constexpr int kChaseLoadLine = __LINE__;
// clang-format on

__global__ void stall_chase(const unsigned* next, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = chase(next, (t * 2654435761u) % kChaseElements);
}

__global__ void stall_barrier(float* out) {
  float v = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < kBarrierIters; ++i) {
    if (threadIdx.x < 32) {
#pragma unroll 1
      for (int k = 0; k < 8; ++k) v = v * 1.0001f + 0.5f;
    }
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void stall_fma_chain(float* out) {
  float v = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < kFmaIters; ++i) v = fmaf(v, 1.000001f, 0.5f);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

struct Buffers {
  unsigned* next = nullptr;
  unsigned* out = nullptr;
  Buffers() {
    std::vector<unsigned> perm(kChaseElements);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(7));
    cudaMalloc(&next, kChaseElements * sizeof(unsigned));
    cudaMemcpy(next, perm.data(), kChaseElements * sizeof(unsigned), cudaMemcpyHostToDevice);
    cudaMalloc(&out, std::size_t{1} << 24);
  }
};

Buffers& buffers() {
  static Buffers b;
  return b;
}

}  // namespace

int chase_load_line() { return kChaseLoadLine; }

void launch_stall(StallKernel which) {
  Buffers& b = buffers();
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  switch (which) {
    case StallKernel::chase:
      stall_chase<<<sms * 8, 64>>>(b.next, b.out);
      break;
    case StallKernel::barrier:
      stall_barrier<<<sms * 2, 1024>>>(reinterpret_cast<float*>(b.out));
      break;
    case StallKernel::fma_chain:
      stall_fma_chain<<<sms, 128>>>(reinterpret_cast<float*>(b.out));
      break;
  }
}

const char* stall_kernel_name(StallKernel which) {
  switch (which) {
    case StallKernel::chase:
      return "stall_chase";
    case StallKernel::barrier:
      return "stall_barrier";
    case StallKernel::fma_chain:
      return "stall_fma_chain";
  }
  return "";
}

}  // namespace kprof_test
