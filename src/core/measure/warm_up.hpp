// What a first call does differently: warm-up calls before the profile, and the note when a
// config's first run launched other kernels than its later runs (torch.compile compiling,
// triton.autotune trying its configs, cuBLAS choosing a kernel).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/measure/run_conditions.hpp"
#include "core/measure/sweep_runs.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof::detail {

// Calls the benchmark options.warmup times per config, in sweep order, before the profile
// begins: nothing is subscribed to CUPTI yet, annotations open no region, nothing is measured.
// Then waits for the GPU. A call that raises is a UserFunctionError naming the call; `poll`
// (may be empty) is called after every call, to stop at Ctrl-C. Returns the wall time of each
// config's last call, timed as a profiled run is (the call alone): the function unprofiled.
// Empty with fewer than two warm-up calls: a config's first call compiles and loads (seen on
// the H200: torch.compile's first call took 1.29 s, its runs 3 us), so only a later one tells.
std::vector<double> warm_up(const Options& options, const Sweep& sweep, const RunBody& body,
                            const SweepServices& services, const std::function<void()>& poll);

// With disclose_overhead and fewer than two warm-up calls: one call per config after the
// profile, when nothing is measured, timed until its kernels are done. Returns each config's
// time (empty when no call is made). A call that raises ends the calls with a warning (NaN from
// there on); kprof's errors (an interrupt) pass, and a GPU fault is a GpuFaultError.
std::vector<double> call_unprofiled(const Options& options, const Sweep& sweep, const RunBody& body,
                                    const SweepServices& services,
                                    const std::function<void()>& poll);

// Sets each config's unprofiled_seconds, each row's overhead_seconds and the session's
// overhead_seconds_per_run and unprofiled_seconds_per_run from the unprofiled calls' times.
void disclose_overhead(const std::vector<double>& unprofiled, const std::vector<RunInfo>& runs,
                       int warmup, std::vector<ConfigInfo>& configs, SessionInfo& session);

// "" when every config's first run launched the kernels (names and counts, per annotation) of
// its second run; else one sentence naming the first config that did not, how, and the
// option that helps.
std::string first_run_note(const std::vector<Record>& records, const Sweep& sweep,
                           const Options& options);

}  // namespace kprof::detail
