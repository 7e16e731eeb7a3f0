// The sweep engine: starts a backend, lets it measure the sweep through SweepRuns, keeps what
// was measured when something fails, and aggregates.
#pragma once

#include "core/measure/backend.hpp"
#include "core/measure/run_conditions.hpp"
#include "core/measure/sweep_runs.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof::detail {

// Runs the sweep and aggregates. The backend is started and always stopped; locked clocks are
// always given back. Errors thrown after the first run carry the partial results.
Results run_sweep(Backend& backend, const Options& options, const Sweep& sweep, const RunBody& body,
                  const SweepHooks& hooks = {}, const SweepServices& services = {});

}  // namespace kprof::detail
