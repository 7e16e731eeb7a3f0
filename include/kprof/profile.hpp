// Running a profile: the benchmark function is called for every config and run of a sweep.
#pragma once

#include <cstddef>
#include <functional>

#include "kprof/options.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof {

using BenchmarkFn = std::function<void(const Config&)>;

// What a front end hears of a running profile, and how it stops one; each may be empty. Both
// are called on the thread that called profile().
struct ProfileHooks {
  // After each measured run of a config (not after the unmeasured calls that counters make, nor
  // after the later passes of range and application replay): a progress bar's tick.
  std::function<void(std::size_t config, int run)> run_done;
  // Called between the sleeps of a thermal pause; it throws to stop the profile (the Python
  // front end raises KeyboardInterrupt on Ctrl-C).
  std::function<void()> interrupt_poll;
};

// Validates `options` (OptionError / UnsupportedError before any GPU work), then calls `fn`
// options.runs times for every config of `sweep` (or until options.stopping stops the config),
// in sweep order, and measures the kernels launched inside annotations. With hardware counters
// `fn` is first called once per config without being measured (it sizes the profiler's
// sessions), and with ReplayMode::range or application once per pass of every run. The measurement
// conditions (thermal guard, clock_control, per-run NVML readings, info collectors) are those
// of docs/conditions.md. Throws NoGpuError when no GPU can be used, CuptiBusyError when
// another tool holds CUPTI, ClockControlError / ClockPermissionError when clock_control="base"
// cannot lock the clock, CoolingTimeoutError when the GPU does not cool down. When `fn` throws,
// or the measurement fails mid-sweep, the error carries what was measured before
// (Error::partial_results()).
Results profile(const Options& options, const Sweep& sweep, const BenchmarkFn& fn,
                const ProfileHooks& hooks = {});

// The same for a benchmark without parameters (one config).
Results profile(const Options& options, const std::function<void()>& fn);

}  // namespace kprof
