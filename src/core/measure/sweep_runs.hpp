// The runs of one sweep, as a backend measures them: each call of the benchmark with its
// measurement conditions (thermal guard, readings, info collectors), the regions it opened, and
// the backend's measurements joined to those regions as records. A backend's measure() drives
// it in the backend's own order (src/core/measure/backend.hpp); the loops the backends share are
// here (run_config: one config's runs, with the stopping rule) and beside it (unmeasured_calls.hpp,
// pass_loop.hpp).
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/measure/backend.hpp"
#include "core/measure/info_store.hpp"
#include "core/measure/record_builder.hpp"
#include "core/measure/region_tracker.hpp"
#include "core/measure/run_conditions.hpp"
#include "core/measure/stopping.hpp"
#include "core/results/aggregate.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof::detail {

// Calls the user's benchmark for one (config, run).
// Whether the profile reports what profiling added (overhead_seconds_per_run): with two or
// more warm-up calls, or disclose_overhead (warm_up.hpp makes the calls that tell it).
bool discloses_overhead(const Options& options);

using RunBody = std::function<void(std::size_t config, int run)>;

// Calls body(config, run). What it throws becomes a UserFunctionError "the benchmark function
// failed in <where()>: <what>" naming config and run, but kprof's own errors (an interrupt, an
// annotation used twice), which keep their type. `where` is called only on a failure.
void call_benchmark(const RunBody& body, std::size_t config, int run,
                    const std::function<std::string()>& where);

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
  // After each measured run: not after the unmeasured calls of counters, nor the later passes
  // of range and application replay.
  std::function<void(std::size_t config, int run)> run_end;
  std::function<void(const Progress&)> progress;
  std::function<void(const ConfigInfo&)> config_end;  // after the last run of a config
  // Called after every call of the benchmark and between the sleeps of a thermal pause, so
  // that Ctrl-C stops the sweep there (Python: KeyboardInterrupt; C++: InterruptWatch); it
  // throws to stop the sweep.
  std::function<void()> interrupt_poll;
};

class SweepRuns {
 public:
  // Hands the backend's measurements over; called when the values are needed.
  using Collect = std::function<std::vector<Measurement>()>;
  // What a backend does around each measured run (kernel replay opens and drains sessions).
  struct RunHooks {
    std::function<void(std::size_t config)> before;
    std::function<void()> after;
  };

  SweepRuns(const Options& options, const Sweep& sweep, const RunBody& body,
            const SweepHooks& hooks, const SweepServices& services, const SessionInfo& session);
  ~SweepRuns();
  SweepRuns(const SweepRuns&) = delete;
  SweepRuns& operator=(const SweepRuns&) = delete;

  const Options& options() const { return options_; }
  std::size_t configs() const { return sweep_.size(); }

  // --- for the backends' measure() ------------------------------------------------------
  // Calls the benchmark once for `config` without measuring it; returns the regions it
  // opened. Only before the first config begins.
  std::vector<RegionRun> call_unmeasured(std::size_t config);
  // Runs `config` Options::runs times, or until the stopping rule stops it; with a rule,
  // `collect` hands the values over at each of its checkpoints. Without a rule nothing is
  // collected: the backend collects when it likes.
  void run_config(std::size_t config, const Collect& collect, const RunHooks& hooks = {});
  // The pieces of run_config, for a backend that runs configs in its own order (range and
  // application replay run every config's runs once per pass).
  void begin_config(std::size_t config);
  // Runs the benchmark once, measured; returns the paths of the regions it opened.
  std::vector<std::string> run(std::size_t config, int run, const RunHooks& hooks = {});
  void end_config(StopReason reason);
  // A later pass of a run: the same regions must open in the same order (`expected`, the
  // first pass's), else MeasurementError. Not measured, no info collected.
  void replay(std::size_t config, int run, const std::vector<std::string>& expected, int pass);
  // Hands what `collect` returns to the records (joined to their regions).
  void collect(const Collect& collect);
  // "config 3/4 (n=1024), run 1/10", for messages (describe_run).
  std::string where_run(std::size_t config, int run) const;

  // --- for the engine ---------------------------------------------------------------------
  std::vector<Record> take_records() { return std::move(records_); }
  Conditions take_conditions() {
    return {std::move(configs_), conditions_.take_runs(), info_.take(), {}};
  }
  const ThermalGuard* thermal() const { return conditions_.thermal(); }
  std::string clock_source() const { return conditions_.clock_source(); }
  // What was measured before a failure: the runs that completed, without the checks, with
  // what the backend still held (unless it is not `backend_usable`: the GPU faulted; then the
  // runs waiting for it are NaN).
  std::pair<std::vector<Record>, Conditions> salvage(Backend& backend,
                                                     bool backend_usable = true) noexcept;

 private:
  void begin_measuring();
  void call_body(std::size_t config, int run);
  void check_baseline_exists(const std::vector<RegionRun>& regions) const;
  void check_derive_once(std::span<const Record> fresh);
  void report_progress(std::size_t config, int run) const;
  void poll_interrupt() const {
    if (hooks_.interrupt_poll) hooks_.interrupt_poll();
  }

  const Options& options_;
  const Sweep& sweep_;
  const RunBody& body_;
  const SweepHooks& hooks_;
  RunConditions::Now now_;
  // Set when the overhead is disclosed (discloses_overhead): a run is timed until its kernels
  // are done, as the unprofiled call is.
  std::function<void()> wait_after_run_;
  RunConditions conditions_;
  RecordBuilder builder_;
  InfoStore info_;
  std::vector<Record> records_;
  std::vector<ConfigInfo> configs_;
  double started_ = 0;
  bool measuring_ = false;              // the first config began
  std::optional<std::size_t> current_;  // the config being run
  int current_runs_ = 0;
  double config_started_ = 0;
  double config_paused_ = 0;
  bool collect_failed_ = false;
  bool derive_checked_ = false;  // derive_metric ran once on measured values
};

}  // namespace kprof::detail
