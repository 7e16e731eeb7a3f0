// The calls of a pass of its own (core/measure/extra_pass.hpp) that takes values per region: one
// call of each config, with the region tracker's hooks taking what ran at every region boundary
// and giving it to every region open then, so that a region holds its nested regions' values as
// its measured values do. set:flop's counts and set:source's samples are taken so.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/measure/sweep_runs.hpp"
#include "core/metrics/pass_records.hpp"
#include "kprof/sweep.hpp"

namespace kprof::detail {

// What ran since the last boundary: per function (mangled), a value per metric of the pass.
using FunctionValues = std::map<std::string, std::vector<double>>;

// What a pass takes at each boundary, of the GPU (or of a script in the unit tests).
struct RegionProbe {
  std::function<FunctionValues()> take;  // waits for the GPU; what ran since the last boundary
  std::function<void()> discard;         // waits for the GPU; drops it (no region's)
};

// The region tracker in a profile of its own while a pass's calls run (the measured runs' profile
// has ended).
class PassProfile {
 public:
  PassProfile();
  ~PassProfile();
  PassProfile(const PassProfile&) = delete;
  PassProfile& operator=(const PassProfile&) = delete;
};

// Calls `body` once per config of `sweep`, in a profile of the region tracker that the caller
// has begun (a PassProfile); returns what each opened region took, per config.
// What ran outside every region is discarded. A call that raises is a UserFunctionError naming
// its config and `what` ("its call counting FLOP (set:flop)"); a take that throws in a hook is
// raised once the call returns. `poll` (may be empty) is called after each call, to stop at
// Ctrl-C.
std::vector<RegionValues> take_per_region(const RegionProbe& probe, const Sweep& sweep,
                                          const RunBody& body, const std::function<void()>& poll,
                                          const std::string& what);

}  // namespace kprof::detail
