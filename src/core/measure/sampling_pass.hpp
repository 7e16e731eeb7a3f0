// set:source sampled in the process: one call of each config after the measured runs, under
// CUPTI's PC sampling (cuda/cupti/pc_sampler.hpp), whose samples are taken at every region
// boundary and given to every region open then (core/measure/region_pass.hpp), then joined to
// the kernels the measured runs recorded there as records of the sampled metrics (kprof/
// metrics.hpp's sampled_metrics: the samples of the region's kernels, of each stall reason).
//
// Sampling slows the kernels it samples, so it runs apart from the measured runs; one call is
// enough, as a region of 10 us still gives thousands of samples at the period chosen for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/measure/sweep_runs.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof::detail {

// One PC's samples of one stall reason.
struct StallSamples {
  std::string function;  // mangled, as the GPU names it
  std::uint64_t pc_offset = 0;
  std::uint32_t cubin_crc = 0;  // the module's code the PC is in (ModuleCode's name for it)
  std::string reason;           // "long_scoreboard", "long_scoreboard_not_issued"...
  std::uint64_t samples = 0;
};

// What was sampled between two boundaries.
struct SampleWindow {
  std::vector<StallSamples> stalls;
  std::uint64_t total_samples = 0;    // all the hardware took, dropped ones included
  std::uint64_t dropped_samples = 0;  // those the hardware buffer could not keep
  bool buffer_full = false;           // samples were lost beyond those counted as dropped
};

// Where a sampled instruction is: its SASS and its source line, as far as they are known.
struct InstructionPlace {
  std::string sass;  // its opcode; empty where the module's code or nvdisasm is missing
  std::string file;  // empty where the code has no line information
  int line = 0;
};

// What the pass needs of the GPU (src/cuda: CuptiWarpSampler; the unit tests: a script).
class WarpSampler {
 public:
  virtual ~WarpSampler() = default;
  // Where the instruction at `pc_offset` of `function` (mangled) in cubin `crc` is; asked once
  // per instruction after the calls.
  virtual InstructionPlace place(std::uint32_t crc, const std::string& function,
                                 std::uint64_t pc_offset) = 0;
  // Waits for the GPU, then samples from now on.
  virtual void start() = 0;
  // Waits for the GPU, then hands over what was sampled since start() or the last take or
  // discard; sampling goes on.
  virtual SampleWindow take() = 0;
  // Waits for the GPU, then drops what was sampled since then (no region's).
  virtual void discard() = 0;
  // Stops sampling. Never throws; nothing to do when not sampling.
  virtual void stop() noexcept = 0;
};

// The sampling period, 2^N cycles, for a pass whose regions run from `shortest_ns` to
// `longest_ns` on a GPU of `sms` SMs at `clock_khz`: each SM takes a sample every period; the
// shortest region should get kSamplesWanted of them, the longest no more than kSamplesAtMost
// (the hardware buffer's share), which wins. N within CUPTI's 5 to 31.
inline constexpr double kSamplesWanted = 20000;
inline constexpr double kSamplesAtMost = 2e7;
int sampling_period_log2(double shortest_ns, double longest_ns, int sms, double clock_khz);

// The shortest and longest of the measured regions' runs, in ns (the sum of a run's kernel
// durations); 0 and 0 without any.
struct RegionSpan {
  double shortest_ns = 0;
  double longest_ns = 0;
};

// The sampled metrics among `metrics` (expanded), in their order.
std::vector<std::string> sampled_metrics_in(const std::vector<std::string>& metrics);

// What a pass sampled in all: the samples the hardware took and dropped, and each function's
// samples (mangled names), said after the pass.
struct SampleTally {
  std::uint64_t total = 0;
  std::uint64_t dropped = 0;
  std::size_t windows = 0;
  std::map<std::string, std::uint64_t> functions;
};

// A profile's pass: one call of each config under `sampler`, in a profile of the region
// tracker of its own, as records of the sampled metrics `metrics` asks for (unit "sample")
// joined to the `measured` kernels (pass_records; `whole_regions` in range replay), and each
// region's sampled instructions in `source` (a line per reason asked for, placed by the
// sampler). A benchmark
// that fails in its call costs the samples, not the profile: `warn` hears why and the values
// are NaN, and so does a GPU that cannot sample (UnsupportedError, CounterPermissionError).
// `warn` also hears of samples the hardware dropped; `tally`, where given, gets the sums.
std::vector<Record> sampling_pass_records(WarpSampler& sampler, const Sweep& sweep,
                                          const RunBody& body, const std::vector<Record>& measured,
                                          bool whole_regions,
                                          const std::vector<std::string>& metrics,
                                          const std::function<void()>& poll,
                                          const std::function<void(const std::string&)>& warn,
                                          std::vector<SourceSample>* source = nullptr,
                                          SampleTally* tally = nullptr);

}  // namespace kprof::detail
