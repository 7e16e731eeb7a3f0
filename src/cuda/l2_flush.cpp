#include "cuda/l2_flush.hpp"

#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/driver_api.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// The flush buffer of each context, kept once made: allocating, clearing and freeing 2x the L2
// cost ~0.8 ms of every profile on the H200, a quarter of a one-kernel profile's fixed cost.
// The memory (120 MiB there) stays with the process, as a framework's caching allocator keeps
// its blocks.
struct KeptBuffer {
  CUcontext context = nullptr;
  CUdeviceptr buffer = 0;
  std::size_t bytes = 0;
  unsigned long long id = 0;  // CU_POINTER_ATTRIBUTE_BUFFER_ID: unique for the process's life
};
std::mutex g_kept_mutex;
std::vector<KeptBuffer> g_kept;

// The allocation `buffer` belongs to, or 0 when it is no allocation (any more).
unsigned long long buffer_id(const DriverApi& driver, CUdeviceptr buffer) {
  unsigned long long id = 0;
  if (driver.pointer_get_attribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, buffer) != CUDA_SUCCESS)
    return 0;
  return id;
}

// A zeroed buffer of `bytes` (+16 for the sink) in `context`, kept for the next profile. A kept
// buffer is used again only while it is the very allocation kprof made: cudaDeviceReset frees
// it, and another allocation may take its address.
CUdeviceptr zeroed_buffer(const DriverApi& driver, CUcontext context, std::size_t bytes) {
  std::lock_guard lock(g_kept_mutex);
  for (KeptBuffer& kept : g_kept) {
    if (kept.context != context || kept.bytes != bytes) continue;
    if (kept.id != 0 && buffer_id(driver, kept.buffer) == kept.id) return kept.buffer;
    kept.buffer = 0;  // freed behind kprof's back: make another
  }
  void* pointer = nullptr;
  check_cuda(cudaMalloc(&pointer, bytes + 16), "cudaMalloc (L2 flush buffer)");
  if (const cudaError_t e = cudaMemset(pointer, 0, bytes); e != cudaSuccess) {
    (void)cudaFree(pointer);
    check_cuda(e, "cudaMemset (L2 flush buffer)");
  }
  const auto buffer = reinterpret_cast<CUdeviceptr>(pointer);
  std::erase_if(g_kept, [&](const KeptBuffer& k) { return k.buffer == 0; });
  g_kept.push_back({context, buffer, bytes, buffer_id(driver, buffer)});
  return buffer;
}

}  // namespace

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
  buffer_ = zeroed_buffer(*driver_, context_, bytes_);
  sink_ = buffer_ + bytes_;
  kernel_ = l2_flush_kernel();
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
             "cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount)");
  blocks_ = static_cast<unsigned int>(4 * (sms > 0 ? sms : 1));
}

// The buffer stays allocated for the next profile (zeroed_buffer).
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

void L2Flush::flush_and_wait() {
  if (const CUresult r = launch(nullptr); r != CUDA_SUCCESS)
    throw CudaError(std::string("cuLaunchKernel (L2 flush) failed: ") + driver_error_name(r));
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after the L2 flush)");
}

L2Flush::Outcome L2Flush::before_launch(CUcontext launch_context, CUstream stream,
                                        ProfilerPause* pause) noexcept {
  if (buffer_ == 0) return Outcome::failed;
  if (launch_context != nullptr && launch_context != context_) return Outcome::other_context;
  // A launch into a capturing stream runs later, as part of a graph; a memset enqueued now
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
