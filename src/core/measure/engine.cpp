#include "core/measure/engine.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/measure/clock_lock.hpp"
#include "core/measure/counter_wait.hpp"
#include "core/measure/extra_pass.hpp"
#include "core/measure/region_tracker.hpp"
#include "core/measure/warm_up.hpp"
#include "core/results/aggregate.hpp"
#include "core/say.hpp"
#include "kprof/errors.hpp"
#include "kprof/layout.hpp"
#include "kprof/log.hpp"
#include "kprof/profile.hpp"
#include "kprof/rank.hpp"

namespace kprof::detail {
namespace {

// Stops the backend and ends the tracker's profile on every exit path.
class StopGuard {
 public:
  StopGuard(Backend& backend, RegionTracker& tracker) : backend_(backend), tracker_(tracker) {}
  ~StopGuard() {
    backend_.stop();
    tracker_.end_profile();
  }
  StopGuard(const StopGuard&) = delete;
  StopGuard& operator=(const StopGuard&) = delete;

 private:
  Backend& backend_;
  RegionTracker& tracker_;
};

class ReleaseGuard {
 public:
  explicit ReleaseGuard(Backend& backend) : backend_(backend) {}
  ~ReleaseGuard() { backend_.release(); }
  ReleaseGuard(const ReleaseGuard&) = delete;
  ReleaseGuard& operator=(const ReleaseGuard&) = delete;

 private:
  Backend& backend_;
};

// Aggregates what a failed sweep measured. Derived metrics and normalization may not hold on
// partial data; then the rows are made without them rather than not at all.
std::shared_ptr<const Results> partial_results(const SessionInfo& session, const Sweep& sweep,
                                               std::vector<Record> records,
                                               const Conditions& conditions,
                                               const Options& options) {
  try {
    return std::make_shared<Results>(aggregate(session, sweep, records, options, conditions));
  } catch (...) {
  }
  Options plain = options;
  plain.normalize_against.clear();
  plain.derive = nullptr;
  try {
    return std::make_shared<Results>(aggregate(session, sweep, records, plain, conditions));
  } catch (...) {
  }
  return std::make_shared<Results>(session, sweep, std::move(records), std::vector<Sample>{},
                                   std::vector<Row>{}, conditions.configs, conditions.runs,
                                   conditions.info);
}

std::string context_lost_message(const std::string& fault, const std::string& noticed) {
  return "the GPU faulted (" + fault +
         "): the CUDA context of this process is lost and every later CUDA call in it fails; "
         "end the process (compute-sanitizer finds the kernel that faulted). It was noticed "
         "here: " +
         noticed +
         ". partial_results keeps every run made; values that were still to be read from the GPU "
         "(the config in progress, and with durations every config not yet collected) are NaN";
}

void describe_conditions(SessionInfo& session, const Options& options) {
  const RankInfo rank = rank_info();
  session.rank = rank.rank;
  session.world_size = rank.world_size;
  session.local_rank = rank.local_rank;
  session.launcher = rank.launcher;
  describe_options(session, options);
}

// After the sweep: how often the clock was low and how long the guard paused.
void report_conditions(const Options& options, const SessionInfo& session,
                       const Conditions& conditions, const ThermalGuard* thermal) {
  if (const std::string note = throttle_note(session, conditions.runs); !note.empty())
    say(options, Verbosity::info,
        "warning: " + note + " (throttled; see ThrottledRuns and the runs' MeasuredClock)");
  if (thermal != nullptr && thermal->pauses() > 0)
    say(options, Verbosity::info,
        "thermal guard paused " + std::to_string(thermal->pauses()) + " time(s), " +
            fixed(thermal->paused_s(), 1) + " s in all; thermal_cont is now " +
            std::to_string(thermal->thermal_cont()) + " C");
}

// The measurement kinds of a pass of their own (set:flop's counts, ...), once every measured and
// unprofiled call is done: their records join `records`, their tables `conditions`.
void add_extra_pass_records(const Options& options, const Sweep& sweep, const RunBody& body,
                            const SweepServices& services, const std::function<void()>& poll,
                            std::vector<Record>& records, Conditions& conditions) {
  const std::function<void(const std::string&)> warn = [&options](const std::string& why) {
    say(options, Verbosity::info, "warning: " + why);
  };
  PassOutput extra = measure_extra_passes({options, sweep, body, records, services, poll, warn});
  records.insert(records.end(), std::make_move_iterator(extra.records.begin()),
                 std::make_move_iterator(extra.records.end()));
  conditions.source = std::move(extra.source);
}

// clock_control="base": the SM clock locked to base in `clocks` (given back as it goes).
void lock_base_clock(const Options& options, const SweepServices& services,
                     std::optional<ClockLock>& clocks) {
  if (options.clock_control != ClockControl::base) return;
  if (services.clocks == nullptr)
    throw ClockControlError("clock_control='base' cannot lock the SM clock: " +
                            (services.clocks_unavailable.empty()
                                 ? std::string("no clock control in this process")
                                 : services.clocks_unavailable));
  clocks.emplace(*services.clocks);
  say(options, Verbosity::info,
      "SM clock of " + services.clocks->device() +
          " locked to base for this profile (clock_control='base')");
}

}  // namespace

Results run_sweep(Backend& backend, const Options& options, const Sweep& sweep, const RunBody& body,
                  const SweepHooks& hooks, const SweepServices& services) {
  SessionInfo session = backend.describe();
  describe_conditions(session, options);
  std::optional<ClockLock> clocks;  // given back on every way out of this function
  lock_base_clock(options, services, clocks);
  std::vector<double> unprofiled = warm_up(options, sweep, body, services, hooks.interrupt_poll);
  // What stop() kept for the unprofiled calls is given back after them, or on any way out.
  const ReleaseGuard released(backend);
  auto& tracker = RegionTracker::instance();
  tracker.begin_profile();
  std::vector<Record> records;
  Conditions conditions;
  {
    StopGuard guard(backend, tracker);
    // Ctrl-C also stops a wait for the GPU's counters (wait_for_counters), which the backend
    // makes where no hook reaches: as it starts, and at its first pass.
    const InterruptPollScope polled(hooks.interrupt_poll);
    backend.start(options);
    if (hooks.started) hooks.started(session);
    SweepRuns runs(options, sweep, body, hooks, services, session);
    try {
      backend.measure(runs);
    } catch (Error& e) {
      // A fault that cost the context: what the backend holds of the config in progress cannot
      // be trusted (nor read), and the error says the process is done with the GPU.
      const std::string fault = services.gpu_fault ? services.gpu_fault() : std::string();
      auto [partial_records, partial_conditions] = runs.salvage(backend, fault.empty());
      auto partial =
          partial_results(session, sweep, std::move(partial_records), partial_conditions, options);
      if (fault.empty()) {
        e.set_partial_results(std::move(partial));
        throw;
      }
      GpuFaultError lost(context_lost_message(fault, e.what()));
      lost.set_partial_results(std::move(partial));
      throw lost;
    }
    session.clock_source = runs.clock_source();
    records = runs.take_records();
    conditions = runs.take_conditions();
    report_conditions(options, session, conditions, runs.thermal());
    if (const std::string note = first_run_note(records, sweep, options); !note.empty())
      say(options, Verbosity::info, "warning: " + note);
  }
  session.profiler_seconds = backend.profiler_seconds();
  try {  // at the profile's clocks, with nothing measured
    if (unprofiled.empty())
      unprofiled = call_unprofiled(options, sweep, body, services, hooks.interrupt_poll);
    backend.release();
    clocks.reset();
    disclose_overhead(unprofiled, conditions.runs, options.warmup, conditions.configs, session);
    add_extra_pass_records(options, sweep, body, services, hooks.interrupt_poll, records,
                           conditions);
  } catch (Error& e) {  // the measurements are complete: they stay usable
    e.set_partial_results(partial_results(session, sweep, records, conditions, options));
    throw;
  }
  if (const std::string note = kprof::overhead_note(session); !note.empty())
    say(options, Verbosity::info, note);
  const Conditions kept = conditions;
  try {
    return aggregate(session, sweep, records, options, std::move(conditions));
  } catch (Error& e) {  // e.g. no baseline for a config: the measurements stay usable
    e.set_partial_results(partial_results(session, sweep, std::move(records), kept, options));
    throw;
  } catch (const std::exception& e) {  // the user's derive or combine function threw
    Error error(std::string("derive_metric or combine_kernel_metrics failed while the results "
                            "were aggregated: ") +
                e.what() + "; the measurements are kept in partial_results");
    error.set_partial_results(partial_results(session, sweep, std::move(records), kept, options));
    throw error;
  }
}

}  // namespace kprof::detail
