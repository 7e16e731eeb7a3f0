// A cold L2 for every measured kernel, with the flush outside the kernel's measured time.
//
// Before each measured launch, a memset over a buffer of twice the L2 size is enqueued on the
// launch's own stream from the CUPTI driver-API ENTER callback. Stream order makes the kernel
// start after the memset has evicted whatever the previous work left in L2, and because the
// memset is a separate operation its time is not part of the kernel's activity record
// (cupti-probe/flush_cb.cu proved this on the H200: a 1 MiB y = 2x went from 1.50 us warm to
// 2.18 us cold). Why the driver callback and not the runtime one: every runtime launch ends in
// a driver launch, whose parameters always name the real stream, including launches that
// bypass the runtime (cuLaunchKernel from Triton, CuPy or JAX).
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstddef>

#include "cuda/driver_api.hpp"

namespace kprof::detail {

class L2Flush {
 public:
  enum class Outcome {
    flushed,        // the memset is enqueued before the launch
    capturing,      // the stream is being captured into a graph: nothing runs now
    other_context,  // the launch targets another device/context than the buffer
    failed,         // the memset could not be enqueued (see last_error())
  };

  L2Flush() = default;
  ~L2Flush() { release(); }
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  // Allocates 2x the L2 of the current device in its current context. Throws CudaError.
  void allocate();
  // Frees the buffer; never throws.
  void release() noexcept;
  bool allocated() const noexcept { return buffer_ != 0; }
  std::size_t bytes() const noexcept { return bytes_; }

  // Called from the launch callback on the launching thread; never blocks, never throws.
  Outcome before_launch(CUcontext launch_context, CUstream stream) noexcept;
  CUresult last_error() const noexcept { return last_error_.load(); }

 private:
  CUdeviceptr buffer_ = 0;
  std::size_t bytes_ = 0;
  CUcontext context_ = nullptr;
  const DriverApi* driver_ = nullptr;
  std::atomic<CUresult> last_error_{CUDA_SUCCESS};
};

}  // namespace kprof::detail
