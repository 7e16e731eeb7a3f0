// The kernel-launch APIs kprof watches, and the stream each driver launch goes to.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <span>

namespace kprof::detail {

// Every runtime launch API: <<<>>> (CUDA 13: __cudaLaunchKernel), cudaLaunchKernel, *ExC,
// cooperative and graph launches, each with its per-thread-stream (_ptsz) variant.
std::span<const CUpti_CallbackId> runtime_launch_cbids() noexcept;

// Every driver launch API: cuLaunch, cuLaunchGrid(Async), cuLaunchKernel(Ex), cooperative and
// graph launches, with their _ptsz variants.
std::span<const CUpti_CallbackId> driver_launch_cbids() noexcept;

// Whether `cbid` of `domain` launches a whole CUDA graph.
bool is_graph_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) noexcept;

// The stream a driver launch enqueues on, read from its parameter struct. A null stream of a
// _ptsz variant means the per-thread default stream, so CU_STREAM_PER_THREAD is returned
// for it (cuMemsetD8Async itself would read null as the legacy stream).
// Returns false for a cbid that is not a driver launch.
bool driver_launch_stream(CUpti_CallbackId cbid, const void* params, CUstream* stream) noexcept;

}  // namespace kprof::detail
