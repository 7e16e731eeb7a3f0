// Kernels and launchers for the GPU tests: one distinct kernel per launch style, so a record's
// name tells which launch it came from. Launchers throw std::runtime_error on any CUDA error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kprof_test {

enum class Named { outer_a, inner, outer_b, worker, outside };

void launch_chevron(float* out);      // k_chevron<<<>>> (CUDA 13: __cudaLaunchKernel)
void launch_runtime(float* out);      // cudaLaunchKernel(k_runtime)
void launch_ex(float* out);           // cudaLaunchKernelEx(k_ex)
void launch_driver(float* out);       // cuLaunchKernel(k_driver), reached via the entry point
void launch_cooperative(float* out);  // cudaLaunchCooperativeKernel(k_coop)
void launch_named(Named which, float* out);  // k_outer_a, k_inner, k_outer_b, k_worker, k_outside

// A graph of k_graph1 -> k_graph2 -> k_graph3 made by stream capture on `stream`.
cudaGraphExec_t capture_graph(cudaStream_t stream, float* out, cudaGraph_t* graph_out = nullptr);

// k_fault, which writes through an address no allocation holds: an illegal memory access that
// costs the process its CUDA context. Noticed by the next synchronizing call, not here.
void launch_fault();

// y = 2x over n floats on `stream` (k_stream_scale): reads 4n bytes, writes 4n.
void launch_stream_scale(cudaStream_t stream, const float* x, float* y, std::size_t n);

void check(cudaError_t error, const char* what);

}  // namespace kprof_test
