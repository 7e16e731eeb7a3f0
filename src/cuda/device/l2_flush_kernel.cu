// The kernel that evicts the L2 by reading a buffer twice its size (see l2_flush.hpp for why
// reading and not writing).
#include <cuda_runtime.h>

#include "cuda/device/cuda_check.hpp"
#include "cuda/device/l2_flush.hpp"

// Outside any namespace and unmangled: its name is how a kernel record is recognised as the
// flush (kL2FlushKernelName), since the flush kernel is launched inside the measured launch's
// callback and its record carries that launch's correlation id.
//
// Reads every 16-byte word of `words` once. The XOR of what was read goes to `sink` only when
// it equals a value no buffer of zeros gives, so the compiler keeps the loads and nothing is
// written.
extern "C" __global__ void kprof_l2_flush(const uint4* words, std::size_t count,
                                          unsigned int* sink) {
  unsigned int folded = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 w = words[i];
    folded ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (folded == 0xdeadbeefu) *sink = folded;
}

namespace kprof::detail {

CUfunction l2_flush_kernel() {
  cudaFunction_t function = nullptr;
  check_cuda(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&kprof_l2_flush)),
             "cudaGetFuncBySymbol (L2 flush kernel)");
  return reinterpret_cast<CUfunction>(function);
}

}  // namespace kprof::detail
