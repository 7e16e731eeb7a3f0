#include "cuda/device/l2_flush.hpp"

#include <cuda_runtime_api.h>

#include "cuda/device/cuda_check.hpp"
#include "cuda/device/driver_api.hpp"
#include "cuda/device/kept_buffer.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

void L2Flush::allocate() {
  release();
  driver_ = &driver_api();
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  int l2_bytes = 0;
  check_cuda(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device),
             "cudaDeviceGetAttribute(cudaDevAttrL2CacheSize)");
  // Twice the L2: writing exactly its size leaves lines behind (hashed set placement and the
  // replacement policy do not evict in address order), twice the size evicts every line.
  bytes_ = 2 * static_cast<std::size_t>(l2_bytes > 0 ? l2_bytes : 64 << 20);
  CUresult result = driver_->ctx_get_current(&context_);
  if (result != CUDA_SUCCESS) {
    release();
    throw CudaError(std::string("cuCtxGetCurrent failed: ") + driver_error_name(result));
  }
  buffer_ = kept_buffer(*driver_, context_, KeptUse::l2_flush, bytes_ + 16);
  sink_ = buffer_ + bytes_;
  kernel_ = l2_flush_kernel();
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
             "cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount)");
  blocks_ = static_cast<unsigned int>(4 * (sms > 0 ? sms : 1));
}

// The buffer stays allocated for the next profile (kept_buffer).
void L2Flush::release() noexcept {
  buffer_ = 0;
  sink_ = 0;
  bytes_ = 0;
  kernel_ = nullptr;
  context_ = nullptr;
}

CUresult L2Flush::launch(CUstream stream) noexcept {
  const uint4* words = reinterpret_cast<const uint4*>(buffer_);
  std::size_t count = bytes_ / sizeof(uint4);
  unsigned int* sink = reinterpret_cast<unsigned int*>(sink_);
  void* args[] = {&words, &count, &sink};
  return driver_->launch_kernel(kernel_, blocks_, 1, 1, 512, 1, 1, 0, stream, args, nullptr);
}

void L2Flush::flush_before_range() {
  if (const CUresult r = launch(nullptr); r != CUDA_SUCCESS)
    throw CudaError(std::string("cuLaunchKernel (L2 flush) failed: ") + driver_error_name(r));
}

L2Flush::Outcome L2Flush::before_launch(CUcontext launch_context, CUstream stream,
                                        ProfilerPause* pause) noexcept {
  if (buffer_ == 0) return Outcome::failed;
  if (launch_context != nullptr && launch_context != context_) return Outcome::other_context;
  // A launch into a capturing stream runs later, as part of a graph; a flush enqueued now
  // would become a node of the user's graph. The graph launch gets its own flush instead.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult result = driver_->stream_is_capturing(stream, &capture);
  if (result != CUDA_SUCCESS || capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    return Outcome::capturing;  // an error here means capture elsewhere forbids this stream
  }
  const bool paused = pause != nullptr && pause->pause();
  result = launch(stream);
  if (paused) pause->resume();
  if (result != CUDA_SUCCESS) {
    last_error_ = result;
    return Outcome::failed;
  }
  return paused ? Outcome::flushed_unprofiled : Outcome::flushed;
}

}  // namespace kprof::detail
