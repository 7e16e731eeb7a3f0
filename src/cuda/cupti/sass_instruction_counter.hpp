// The instruction counter of set:flop's counted calls (core/measure/flop_pass.hpp) on the current
// device: CUPTI's SASS metrics (SassCounter), each PC's FlopClass read from the cubins SassCounter
// keeps. It needs a CUPTI that counts every kernel of a collection (13.5: SassCounter::
// counts_every_kernel) and nvdisasm.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/flop_pass.hpp"
#include "cuda/cupti/sass_counter.hpp"

namespace kprof::detail {

class SassInstructionCounter final : public InstructionCounter {
 public:
  // Throws UnsupportedError where flop_counting_unavailable() says why (CUPTI before 13.5, no
  // nvdisasm), else as SassCounter() does.
  SassInstructionCounter();
  // Counts on the current context.
  void enable() override;
  // Synchronizes the device (a fault of the call's kernels is a CudaError), flushes and classes
  // the counts; a PC of a cubin not kept is a MeasurementError (SassCounter::flop_counts).
  std::map<std::string, FlopCounts> take() override;
  // Synchronizes and flushes, classing nothing.
  void discard() override;
  void disable() noexcept override;

 private:
  // What ran since the last flush, once the device is synchronized.
  std::vector<PcCount> flushed();

  std::optional<SassCounter> counter_;  // made once CUPTI is known to count every kernel
};

}  // namespace kprof::detail
