// What the library needs from the GPU layer. Implemented by src/cuda (built with CUDA) or by
// src/nocuda (built without: every GPU call throws NoGpuError, annotations skip NVTX).
#pragma once

#include <memory>
#include <string>

#include "core/backend.hpp"
#include "kprof/options.hpp"

namespace kprof::detail {

// The backend that measures `options` on the current CUDA device. Throws NoGpuError when no
// GPU or driver can be used, UnsupportedError for options this build cannot measure.
std::unique_ptr<Backend> make_gpu_backend(const Options& options);

// NVTX range in the domain "kprof" around an annotation (push/pop on the calling thread).
void nvtx_push(const std::string& name) noexcept;
void nvtx_pop() noexcept;

}  // namespace kprof::detail
