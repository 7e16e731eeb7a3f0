// Running a profile: the benchmark function is called for every config and run of a sweep.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "kprof/options.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof {

using BenchmarkFn = std::function<void(const Config&)>;

// What a front end hears of a running profile, and how it stops one; each may be empty. Both
// are called on the thread that called profile().
struct ProfileHooks {
  // Once the options are checked, before anything touches CUDA or CUPTI: a front end's state
  // that only a valid profile may change (Python's active tool).
  std::function<void()> checked;
  // After each measured run of a config (not after the unmeasured calls that counters make, nor
  // after the later passes of range and application replay): a progress bar's tick.
  std::function<void(std::size_t config, int run)> run_done;
  // Called after every call of the benchmark and between the sleeps of a thermal pause; it
  // throws to stop the profile (the Python front end raises KeyboardInterrupt on Ctrl-C).
  std::function<void()> interrupt_poll;
  // The front end keeps a failed profile's partial results itself (Python names the files after
  // the function and its call, and adds the call's config objects); profile() then saves none.
  bool front_end_saves_partial_results = false;
};

// Whether a failed profile's partial results are saved: where files were asked for, with
// output_csv or an output_prefix given. The one rule every front end follows.
bool saves_partial_results(bool output_csv, const std::string& output_prefix);

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
// (Error::partial_results()), and with output_csv or an output_prefix those measurements are
// also saved there (save_partial_results). In a program that leaves SIGINT to its default
// action, Ctrl-C stops the profile after the run in progress with an InterruptError that
// carries them; a second Ctrl-C ends the program.
Results profile(const Options& options, const Sweep& sweep, const BenchmarkFn& fn,
                const ProfileHooks& hooks = {});

// Makes ready now what a later profile() with `options` needs to have seen since: for set:flop
// (metrics counting FP instructions in the process), the code of the CUDA modules loaded from
// now on, without which a kernel first launched before the profile, in a warm-up say, cannot be
// counted. profile() does it itself when it starts; a front end that knows the options earlier
// calls it then (the Python decorator, when it is made). kprof's CUPTI subscription is then held
// until the process ends (profiles borrow it), so another CUPTI client such as torch.profiler
// is refused from then on. Does nothing for other metrics or where set:flop cannot be counted
// (profile() says why), and never throws.
void prepare_profile(const Options& options) noexcept;

// Saves what a failed profile measured under `prefix`: kprof's JSON document
// `{prefix}partial-{tag}.json` (for kprof.load and `kprof report`) and, with `csv`, the CSV
// files of output_csv tagged `partial-{tag}`; in a job of several ranks both names end in
// `-rank<N>` (Results::file_tag). Returns the paths written.
std::vector<std::string> save_partial_results(const Results& partial, const std::string& prefix,
                                              const std::string& tag, bool csv);

// The line a front end prints when a profile failed with partial results: how many runs of how
// many configs were measured and where they were saved (`saved`, may be empty).
std::string partial_results_note(const Results& partial, const std::vector<std::string>& saved);

// Writes the fields of `session` that say which options a profile ran with: replay_mode,
// cache_control, clock_control, runs (0 under a stopping rule), metrics, thermal_mode,
// throttle_threshold and the stopping rule's. The one writer of those fields, for the engine and
// for front ends that measure otherwise (Nsight Compute's results in Python).
void describe_options(SessionInfo& session, const Options& options);

// The same for a benchmark without parameters (one config).
Results profile(const Options& options, const std::function<void()>& fn);

}  // namespace kprof
