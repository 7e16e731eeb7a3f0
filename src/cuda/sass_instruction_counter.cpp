#include "cuda/sass_instruction_counter.hpp"

#include <cuda_runtime_api.h>

#include "cuda/cuda_check.hpp"
#include "cuda/driver_api.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

SassInstructionCounter::SassInstructionCounter() {
  if (!SassCounter::counts_every_kernel())
    throw UnsupportedError(
        "set:flop: this CUPTI counts only the first kernel of a collection (CUPTI 13.5 counts "
        "every one)");
  counter_.emplace();
}

void SassInstructionCounter::enable() {
  CUcontext context = nullptr;
  if (driver_api().ctx_get_current(&context) != CUDA_SUCCESS || context == nullptr)
    throw CudaError("set:flop: no current CUDA context to count instructions on");
  counter_->enable(context);
}

std::map<std::string, FlopCounts> SassInstructionCounter::take() {
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before counting FLOP)");
  return SassCounter::flop_counts(counter_->flush());
}

void SassInstructionCounter::disable() noexcept {
  if (!counter_ || !counter_->enabled()) return;
  try {
    (void)counter_->disable();
  } catch (...) {  // a counter that cannot stop has nothing more to give
  }
}

}  // namespace kprof::detail
