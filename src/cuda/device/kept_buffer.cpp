#include "cuda/device/kept_buffer.hpp"

#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "cuda/device/cuda_check.hpp"

namespace kprof::detail {
namespace {

struct Kept {
  CUcontext context = nullptr;
  KeptUse use = KeptUse::l2_flush;
  CUdeviceptr buffer = 0;
  std::size_t bytes = 0;
  unsigned long long id = 0;  // CU_POINTER_ATTRIBUTE_BUFFER_ID: unique for the process's life
};
std::mutex g_mutex;
std::vector<Kept> g_kept;

// The allocation `buffer` belongs to, or 0 when it is no allocation (any more).
unsigned long long buffer_id(const DriverApi& driver, CUdeviceptr buffer) {
  unsigned long long id = 0;
  if (driver.pointer_get_attribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, buffer) != CUDA_SUCCESS)
    return 0;
  return id;
}

}  // namespace

CUdeviceptr kept_buffer(const DriverApi& driver, CUcontext context, KeptUse use,
                        std::size_t bytes) {
  std::lock_guard lock(g_mutex);
  for (Kept& kept : g_kept) {
    if (kept.context != context || kept.use != use || kept.bytes != bytes) continue;
    if (kept.id != 0 && buffer_id(driver, kept.buffer) == kept.id) return kept.buffer;
    kept.buffer = 0;  // freed behind kprof's back: make another
  }
  void* pointer = nullptr;
  check_cuda(cudaMalloc(&pointer, bytes), "cudaMalloc (a buffer kprof keeps)");
  if (const cudaError_t e = cudaMemset(pointer, 0, bytes); e != cudaSuccess) {
    (void)cudaFree(pointer);
    check_cuda(e, "cudaMemset (a buffer kprof keeps)");
  }
  const auto buffer = reinterpret_cast<CUdeviceptr>(pointer);
  std::erase_if(g_kept, [](const Kept& k) { return k.buffer == 0; });
  g_kept.push_back({context, use, buffer, bytes, buffer_id(driver, buffer)});
  return buffer;
}

}  // namespace kprof::detail
