// The sweep engine: configs x runs in order, over a Backend.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "core/backend.hpp"
#include "core/device_probe.hpp"
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
  int runs = 0;             // runs planned: Options::runs, or the stopping rule's max_runs
  double elapsed_s = 0;     // since the sweep started
  bool adaptive = false;    // a stopping rule decides; the config may stop before `runs`
};

// Hook points around the loop; any may be empty.
struct SweepHooks {
  std::function<void(const SessionInfo&)> started;  // after the backend started
  std::function<void(std::size_t config)> config_begin;
  std::function<void(std::size_t config, int run)> run_begin;
  std::function<void(std::size_t config, int run)> run_end;
  std::function<void(const Progress&)> progress;
  std::function<void(const ConfigInfo&)> config_end;  // after the last run of a config
};

// What the engine uses of the GPU besides the backend; any may be null. src/api builds these
// on NVML; tests give scripted ones.
struct SweepServices {
  DeviceProbe* device = nullptr;         // the profiled GPU: per-run clock, temperature...
  TemperatureSource* thermal = nullptr;  // what the thermal guard watches
  ClockSetter* clocks = nullptr;         // clock_control="base"
  std::string device_unavailable;        // why `device` is null ("" when it is not)
  std::string thermal_unavailable;       // why `thermal` is null
  std::string clocks_unavailable;        // why `clocks` is null
  std::function<double()> now_s;         // monotonic seconds; default steady_clock
  std::function<void(double)> sleep_s;   // default std::this_thread::sleep_for
};

// Runs the sweep and aggregates. The backend is started and always stopped; locked clocks are
// always given back. Errors thrown after the first run carry the partial results.
Results run_sweep(Backend& backend, const Options& options, const Sweep& sweep, const RunBody& body,
                  const SweepHooks& hooks = {}, const SweepServices& services = {});

// A function the engine calls between the sleeps of a thermal pause, so that a front end can
// stop a long pause (Python: Ctrl-C raises KeyboardInterrupt); it throws to stop the sweep.
// Set for the duration of a profile, cleared with an empty function.
void set_interrupt_poll(std::function<void()> poll);

// A function the engine calls after each measured run of a profile on this thread, so that a
// front end can count runs for its progress bar: with counters the benchmark is also called
// once per config unmeasured, and in range replay once per later pass; those calls are not
// runs. Set for the duration of a profile, cleared with an empty function. An observer is set
// only where this thread has none (returns false otherwise): a nested profile, which the core
// refuses, leaves the running one's observer in place.
bool set_run_observer(std::function<void(std::size_t config, int run)> observer);

// Says `line` through kprof's log once per process for each `key` (conditions that hold for
// the whole process, such as "no NVML", are not repeated on every profile).
void log_once(const std::string& key, const std::string& line);

}  // namespace kprof::detail
