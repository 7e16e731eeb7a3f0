// set:flop counted in the process: one call of each config after the measured runs, under an
// instruction counter (CUPTI's SASS metrics API: cuda/cupti/sass_counter.hpp), whose counts are
// taken at every region boundary and given to every region open then, so that a region holds its
// nested regions' counts as its measured values do. flop_records() joins what each region
// counted to the kernels the measured runs recorded there.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/measure/sweep_runs.hpp"
#include "core/metrics/flop_records.hpp"
#include "core/metrics/sass_opcodes.hpp"
#include "kprof/sweep.hpp"

namespace kprof::detail {

// What the pass needs of the GPU (src/cuda: SassInstructionCounter; the unit tests: a script).
class InstructionCounter {
 public:
  virtual ~InstructionCounter() = default;
  // Starts counting: each kernel is patched at its first launch from here on (~13 ms on the
  // H200), which is why the pass runs apart from the measured runs.
  virtual void enable() = 0;
  // Waits for the GPU, then hands over what ran since the last take or discard (or enable()):
  // per function (mangled), the thread instructions of each FlopClass.
  virtual std::map<std::string, FlopCounts> take() = 0;
  // Waits for the GPU, then drops what ran since then: no region's, so not classed (its
  // module's code may not have been kept).
  virtual void discard() = 0;
  // Stops counting. Never throws; nothing to do when not counting.
  virtual void disable() noexcept = 0;
};

// Calls `body` once per config of `sweep` with `counter` enabled, in a profile of the region
// tracker that the caller has begun (RegionTracker::begin_profile); returns what each opened
// region counted, per config. What ran outside every region is dropped. A call that raises is a
// UserFunctionError naming its config; `poll` (may be empty) is called after each call, to stop
// at Ctrl-C.
std::vector<RegionFlop> count_flop(InstructionCounter& counter, const Sweep& sweep,
                                   const RunBody& body, const std::function<void()>& poll);

// The instruction classes of set:flop among `metrics` (expanded): flop_metric()'s names.
std::vector<std::string> flop_counts_in(const std::vector<std::string>& metrics);

// A profile's pass (after its measured runs and unprofiled calls): count_flop in a profile of
// the region tracker of its own, joined to the `measured` kernels (flop_records; `whole_regions`
// in range replay), keeping the classes `metrics` asks for. Empty when it asks for none. A
// benchmark that fails in its call (one that cannot be called again, say) costs the counts, not the
// profile: `warn` hears why and the counts are NaN. Kernels launched from other threads count in
// the profiling thread's open regions.
std::vector<Record> flop_pass_records(InstructionCounter& counter, const Sweep& sweep,
                                      const RunBody& body, const std::vector<Record>& measured,
                                      bool whole_regions, const std::vector<std::string>& metrics,
                                      const std::function<void()>& poll,
                                      const std::function<void(const std::string&)>& warn);

}  // namespace kprof::detail
