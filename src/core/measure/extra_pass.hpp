// A measurement kind that needs a pass of its own: it cannot run beside the backend's
// measurement (set:flop patches every kernel it counts; sampling slows the kernels it samples),
// so the engine runs it once the measured runs and the unprofiled calls are done, when the
// options ask for it. It calls the benchmark again and returns records of its own, which join
// the measured ones before aggregation: a record is a (region, kernel, metric) value like those
// the backends measure, so rows, files and front ends carry it unchanged. A kind registers
// itself in its own source file, as a backend does for its replay mode (docs/architecture.md,
// "Adding a measurement kind").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/measure/run_conditions.hpp"
#include "core/measure/sweep_runs.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof::detail {

// What a pass is given: the profile's options (metric sets expanded, replay mode resolved), the
// sweep, the benchmark, the records the backend measured, the GPU services, a poll to call
// after each call (Ctrl-C), and where to say a warning.
struct ExtraPassInputs {
  const Options& options;
  const Sweep& sweep;
  const RunBody& body;
  const std::vector<Record>& measured;
  const SweepServices& services;
  const std::function<void()>& poll;
  const std::function<void(const std::string&)>& warn;
};

// What a pass measured: records of its metrics, joined to the measured kernels, and set:source's
// table of sampled instructions.
struct PassOutput {
  std::vector<Record> records;
  std::vector<SourceSample> source;
};

class ExtraPass {
 public:
  virtual ~ExtraPass() = default;
  // Whether the options ask for this pass and these services can make it (the metrics name its
  // metrics; the GPU layer gave what it needs).
  virtual bool wanted(const Options& options, const SweepServices& services) const = 0;
  // Calls the benchmark as it needs and returns what it measured. An error keeps the measured
  // records (the engine attaches them as partial results).
  virtual PassOutput measure(const ExtraPassInputs& in) = 0;
};

using ExtraPassFactory = std::function<std::unique_ptr<ExtraPass>()>;

// Adds the pass `name` made by `make`; returns true (for a static initializer). A name
// registered twice keeps its first pass.
bool register_extra_pass(const std::string& name, ExtraPassFactory make);

// The registered names, in the order the engine runs them (by name).
std::vector<std::string> extra_pass_names();

// Runs every registered pass the options ask for, in name order; what they measured.
PassOutput measure_extra_passes(const ExtraPassInputs& in);

}  // namespace kprof::detail
