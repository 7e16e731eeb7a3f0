#include <cuda.h>
#include <cudaTypedefs.h>

#include <stdexcept>
#include <string>

#include "test_kernels.hpp"

namespace kprof_test {

__global__ void k_chevron(float* out) { out[threadIdx.x] = 1.0f; }
__global__ void k_runtime(float* out) { out[threadIdx.x] = 2.0f; }
__global__ void k_fault(float* out) { out[threadIdx.x] = 9.0f; }
__global__ void k_ex(float* out) { out[threadIdx.x] = 3.0f; }
__global__ void k_driver(float* out) { out[threadIdx.x] = 4.0f; }
__global__ void k_coop(float* out) { out[threadIdx.x] = 5.0f; }
__global__ void k_outer_a(float* out) { out[threadIdx.x] = 6.0f; }
__global__ void k_inner(float* out) { out[threadIdx.x] = 7.0f; }
__global__ void k_outer_b(float* out) { out[threadIdx.x] = 8.0f; }
__global__ void k_worker(float* out) { out[threadIdx.x] = 9.0f; }
__global__ void k_outside(float* out) { out[threadIdx.x] = 10.0f; }
__global__ void k_graph1(float* out) { out[threadIdx.x] = 11.0f; }
__global__ void k_graph2(float* out) { out[threadIdx.x] += 1.0f; }
__global__ void k_graph3(float* out) { out[threadIdx.x] *= 2.0f; }

constexpr unsigned kThreads = 32;

void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(error) + " " +
                             cudaGetErrorString(error));
  }
}

__global__ void k_stream_scale(const float* x, float* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    y[i] = 2.0f * x[i];
}

void launch_stream_scale(cudaStream_t stream, const float* x, float* y, std::size_t n) {
  k_stream_scale<<<1056, 256, 0, stream>>>(x, y, n);
  check(cudaGetLastError(), "k_stream_scale<<<>>>");
}

void launch_chevron(float* out) {
  k_chevron<<<1, kThreads>>>(out);
  check(cudaGetLastError(), "k_chevron<<<>>>");
}

void launch_fault() {
  // Address 16 is never mapped on the device.
  k_fault<<<1, kThreads>>>(reinterpret_cast<float*>(16));
}

void launch_runtime(float* out) {
  void* args[] = {&out};
  check(cudaLaunchKernel(reinterpret_cast<const void*>(&k_runtime), dim3(1), dim3(kThreads), args,
                         0, nullptr),
        "cudaLaunchKernel");
}

void launch_ex(float* out) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(kThreads);
  check(cudaLaunchKernelEx(&config, k_ex, out), "cudaLaunchKernelEx");
}

void launch_driver(float* out) {
  static PFN_cuLaunchKernel_v4000 cu_launch_kernel = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
    check(
        cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, 13000, cudaEnableDefault, &status),
        "cudaGetDriverEntryPointByVersion(cuLaunchKernel)");
#else
    check(cudaGetDriverEntryPoint("cuLaunchKernel", &fn, cudaEnableDefault, &status),
          "cudaGetDriverEntryPoint(cuLaunchKernel)");
#endif
    if (status != cudaDriverEntryPointSuccess) throw std::runtime_error("no cuLaunchKernel");
    return reinterpret_cast<PFN_cuLaunchKernel_v4000>(fn);
  }();
  cudaFunction_t function = nullptr;
  check(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&k_driver)),
        "cudaGetFuncBySymbol");
  void* args[] = {&out};
  CUresult result = cu_launch_kernel(reinterpret_cast<CUfunction>(function), 1, 1, 1, kThreads, 1,
                                     1, 0, nullptr, args, nullptr);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("cuLaunchKernel failed: " + std::to_string(result));
  }
}

void launch_cooperative(float* out) {
  void* args[] = {&out};
  check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&k_coop), dim3(1), dim3(kThreads),
                                    args, 0, nullptr),
        "cudaLaunchCooperativeKernel");
}

void launch_named(Named which, float* out) {
  switch (which) {
    case Named::outer_a:
      k_outer_a<<<1, kThreads>>>(out);
      break;
    case Named::inner:
      k_inner<<<1, kThreads>>>(out);
      break;
    case Named::outer_b:
      k_outer_b<<<1, kThreads>>>(out);
      break;
    case Named::worker:
      k_worker<<<1, kThreads>>>(out);
      break;
    case Named::outside:
      k_outside<<<1, kThreads>>>(out);
      break;
  }
  check(cudaGetLastError(), "named kernel <<<>>>");
}

cudaGraphExec_t capture_graph(cudaStream_t stream, float* out, cudaGraph_t* graph_out) {
  cudaGraph_t graph = nullptr;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  k_graph1<<<1, kThreads, 0, stream>>>(out);
  k_graph2<<<1, kThreads, 0, stream>>>(out);
  k_graph3<<<1, kThreads, 0, stream>>>(out);
  check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  if (graph_out != nullptr) {
    *graph_out = graph;
  } else {
    check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  }
  return exec;
}

}  // namespace kprof_test
