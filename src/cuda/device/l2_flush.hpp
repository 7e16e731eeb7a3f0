// A cold L2 for every measured kernel, with the flush outside the kernel's measured time.
//
// Before each measured launch, a kernel that reads a buffer of twice the L2 size is enqueued on
// the launch's own stream from the CUPTI driver-API ENTER callback. Stream order makes the
// kernel start after the read has evicted whatever the previous work left in L2, and because
// the flush is a separate kernel its time is not part of the measured kernel's record. Why the
// driver callback and not the runtime one: every runtime launch ends in a driver launch, whose
// parameters always name the real stream, including launches that bypass the runtime
// (cuLaunchKernel from Triton, CuPy or JAX).
//
// Why reading and not a memset (what NVBench does): a memset leaves the L2 full of dirty lines,
// which the measured kernel then writes back to DRAM, so it measures slower than under Nsight
// Compute, whose flush leaves the L2 clean. A read leaves only clean lines: the user's dirty
// lines are written back during the flush.
//
// Under the range profiler's kernel replay every kernel is a range, the flush too, and replayed
// like the kernel it precedes it would cost as much as the kernel's own range. So a 1-pass set
// runs its auto ranges without kernel replay (nothing to replay), and with more passes the flush
// runs between a Stop and a Start of the range profiler, issued from the launch callback
// (PassPause, src/core/measure/pass_pause.hpp), so it is no range at all. The figures, and the
// designs that failed before this one, are in docs/validation.md: "The L2 flush: read, not memset",
// "The flush in a context of its own", "Two more ways to keep the flush out of kernel replay" (a
// copy-engine read, green contexts) and "The flush between a Stop and a Start".
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstddef>

#include "core/measure/pass_pause.hpp"
#include "cuda/device/driver_api.hpp"

namespace kprof::detail {

class L2Flush {
 public:
  enum class Outcome {
    flushed,             // the flush kernel is enqueued before the launch
    flushed_unprofiled,  // the same, while the range profiler was paused
    capturing,           // the stream is being captured into a graph: nothing runs now
    other_context,       // the launch targets another device/context than the buffer
    failed,              // the flush could not be enqueued (see last_error())
  };

  L2Flush() = default;
  ~L2Flush() { release(); }
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  // Takes a buffer of 2x the L2 of the current device in its current context (allocated by the
  // first profile there, kept for the process's life) and loads the flush kernel. Throws
  // CudaError.
  void allocate();
  // Lets go of the buffer, which stays allocated for the next profile; never throws.
  void release() noexcept;
  bool allocated() const noexcept { return buffer_ != 0; }
  std::size_t bytes() const noexcept { return bytes_; }

  // Called from the launch callback on the launching thread; never throws, and blocks only in
  // `pause` (null: no pause). The flush kernel's own launch calls the callback again, nested in
  // the launch it precedes.
  Outcome before_launch(CUcontext launch_context, CUstream stream,
                        ProfilerPause* pause = nullptr) noexcept;
  CUresult last_error() const noexcept { return last_error_.load(); }
  // Flushes now, on the legacy default stream, before a user range opens. It needs no wait: the
  // range profiler serialises the context's work while its session is open, so the range's
  // kernels, on any stream, start after the flush ends (tests/gpu/test_counters.cpp, a kernel on
  // a non-blocking stream). Throws CudaError when the launch fails; a fault of the flush kernel
  // itself shows at the next synchronization.
  void flush_before_range();

 private:
  CUresult launch(CUstream stream) noexcept;

  CUdeviceptr buffer_ = 0;
  std::size_t bytes_ = 0;
  CUdeviceptr sink_ = 0;  // where the flush kernel would write (it never does)
  CUfunction kernel_ = nullptr;
  unsigned int blocks_ = 0;
  CUcontext context_ = nullptr;
  const DriverApi* driver_ = nullptr;
  std::atomic<CUresult> last_error_{CUDA_SUCCESS};
};

// The flush kernel's name as kernel records carry it.
inline constexpr const char* kL2FlushKernelName = "kprof_l2_flush";

// The flush kernel of this build (l2_flush_kernel.cu). Throws CudaError.
CUfunction l2_flush_kernel();

}  // namespace kprof::detail
