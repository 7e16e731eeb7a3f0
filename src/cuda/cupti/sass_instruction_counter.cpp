#include "cuda/cupti/sass_instruction_counter.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "core/measure/gpu_layer.hpp"
#include "core/metrics/sass_opcodes.hpp"
#include "cuda/cupti/range_profiler.hpp"
#include "cuda/device/cuda_check.hpp"
#include "cuda/device/driver_api.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

std::string flop_counting_unavailable() {
  constexpr const char* kNeeds =
      "set:flop counts instructions in the process with CUPTI 13.5 or "
      "later, and this process ";
  const auto version = static_cast<int>(cupti_runtime_version());
  if (version == 0)  // CUPTI 13.5 answers no version without a driver
    return std::string(kNeeds) + "could not query CUPTI (see `kprof doctor`'s CUPTI line)";
  if (!SassCounter::counts_every_kernel())
    return std::string(kNeeds) + "loaded CUPTI " + format_cupti_version(version) +
           " (which counts only the first kernel of a collection): install "
           "nvidia-cuda-cupti>=13.5 and load its nvidia/cu13/lib/libcupti.so.13 before any "
           "other (LD_PRELOAD; docs/analysis.md shows how), or measure set:flop with Nsight "
           "Compute (Python: kprof.activate(kprof.Tool.NCU))";
  if (find_nvdisasm().empty()) return "set:flop: " + nvdisasm_not_found();
  return "";
}

std::unique_ptr<InstructionCounter> make_instruction_counter() {
  return std::make_unique<SassInstructionCounter>();
}

SassInstructionCounter::SassInstructionCounter() {
  if (const std::string why = flop_counting_unavailable(); !why.empty())
    throw UnsupportedError(why);
  counter_.emplace();
}

void SassInstructionCounter::enable() {
  CUcontext context = nullptr;
  if (driver_api().ctx_get_current(&context) != CUDA_SUCCESS || context == nullptr)
    throw CudaError("set:flop: no current CUDA context to count instructions on");
  counter_->enable(context);
}

std::vector<PcCount> SassInstructionCounter::flushed() {
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before counting FLOP)");
  return counter_->flush();
}

std::map<std::string, FlopCounts> SassInstructionCounter::take() {
  return SassCounter::flop_counts(flushed());
}

void SassInstructionCounter::discard() { (void)flushed(); }

void SassInstructionCounter::disable() noexcept {
  if (!counter_ || !counter_->enabled()) return;
  try {
    (void)counter_->disable();
  } catch (...) {  // a counter that cannot stop has nothing more to give
  }
}

}  // namespace kprof::detail
