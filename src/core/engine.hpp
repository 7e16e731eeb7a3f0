// The sweep engine: configs x runs in order, over a Backend.
#pragma once

#include <cstddef>
#include <functional>

#include "core/backend.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof::detail {

// Calls the user's benchmark for one (config, run).
using RunBody = std::function<void(std::size_t config, int run)>;

struct Progress {
  std::size_t config = 0;   // index of the config being measured
  std::size_t configs = 0;  // number of configs in the sweep
  int run = 0;              // runs done in this config
  int runs = 0;
  double elapsed_s = 0;  // since the sweep started
};

// Hook points around the loop; any may be empty. Collectors and the thermal guard attach here.
struct SweepHooks {
  std::function<void(const SessionInfo&)> started;  // after the backend started
  std::function<void(std::size_t config)> config_begin;
  std::function<void(std::size_t config, int run)> run_begin;
  std::function<void(std::size_t config, int run)> run_end;
  std::function<void(const Progress&)> progress;
};

// Runs the sweep and aggregates. The backend is started and always stopped. Errors thrown
// after the first run carry the partial results.
Results run_sweep(Backend& backend, const Options& options, const Sweep& sweep, const RunBody& body,
                  const SweepHooks& hooks = {});

}  // namespace kprof::detail
