#include "core/measure/sweep_runs.hpp"

#include <cstdio>
#include <exception>
#include <span>
#include <string>

#include "core/results/aggregate.hpp"
#include "core/say.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

bool discloses_overhead(const Options& options) {
  return options.warmup >= 2 || options.disclose_overhead;
}
namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& x : items) text += (text.empty() ? "'" : ", '") + x + "'";
  return "[" + text + "]";
}

// Ends the tracker's run after a failed call, whose own error is the one to report.
void end_run_quietly() noexcept {
  try {
    (void)RegionTracker::instance().end_run();
  } catch (...) {  // an annotation the failure left open
  }
}

}  // namespace

SweepRuns::SweepRuns(const Options& options, const Sweep& sweep, const RunBody& body,
                     const SweepHooks& hooks, const SweepServices& services,
                     const SessionInfo& session)
    : options_(options),
      sweep_(sweep),
      body_(body),
      hooks_(hooks),
      now_(services.now_s ? services.now_s : steady_seconds),
      wait_after_run_(discloses_overhead(options) ? services.wait_for_gpu : nullptr),
      conditions_(options, services, session, now_, hooks.interrupt_poll),
      builder_(options, sweep),
      info_(options) {
  started_ = now_();
}

SweepRuns::~SweepRuns() { RegionTracker::instance().set_open_listener(nullptr); }

std::vector<RegionRun> SweepRuns::call_unmeasured(std::size_t config) {
  auto& tracker = RegionTracker::instance();
  tracker.begin_run(config, 0);
  try {
    call_body(config, 0);
  } catch (...) {
    end_run_quietly();
    throw;
  }
  std::vector<RegionRun> regions = tracker.end_run();
  poll_interrupt();
  return regions;
}

// The measured part of the sweep starts with its first config, after any unmeasured calls:
// annotation-scope collectors listen from then on, and once-scope collectors are called.
void SweepRuns::begin_measuring() {
  if (measuring_) return;
  measuring_ = true;
  if (info_.has(CollectionScope::annotation))
    RegionTracker::instance().set_open_listener(
        [this](const std::string& path, std::size_t config, int run) {
          info_.call(CollectionScope::annotation, config, run, path);
        });
  info_.call(CollectionScope::once, 0, -1, "");
}

void SweepRuns::begin_config(std::size_t c) {
  begin_measuring();
  if (hooks_.config_begin) hooks_.config_begin(c);
  current_ = c;
  current_runs_ = 0;
  config_started_ = now_();
  config_paused_ = 0;
  info_.call(CollectionScope::config, c, -1, "");
}

void SweepRuns::end_config(StopReason reason) {
  const ConfigInfo done{*current_, current_runs_, to_string(reason),
                        now_() - config_started_ - config_paused_};
  configs_.push_back(done);
  current_.reset();
  if (hooks_.config_end) hooks_.config_end(done);
}

void SweepRuns::run_config(std::size_t c, const Collect& collect_values, const RunHooks& hooks) {
  begin_config(c);
  const std::size_t first_record = records_.size();
  const std::optional<StoppingRule>& rule = options_.stopping;
  int checkpoint = rule ? rule->min_runs : options_.runs;
  StopReason reason = StopReason::runs;
  while (true) {
    run(c, current_runs_, hooks);
    const double busy = now_() - config_started_ - config_paused_;
    const bool out_of_time = rule && rule->time_budget_s > 0 && busy >= rule->time_budget_s;
    if (current_runs_ < checkpoint && !out_of_time) continue;
    if (!rule) break;
    // Values arrive only when collected, so the rule looks at checkpoints: see stopping.hpp.
    collect(collect_values);
    const std::vector<Record> mine(records_.begin() + static_cast<std::ptrdiff_t>(first_record),
                                   records_.end());
    const PrecisionCheck check = check_precision(mine, options_, rule->rel_half_width);
    if (check.met) {
      reason = StopReason::precision;
      break;
    }
    if (out_of_time) {
      reason = StopReason::time_budget;
      break;
    }
    if (current_runs_ >= rule->max_runs) {
      reason = StopReason::max_runs;
      break;
    }
    checkpoint = next_checkpoint(current_runs_, check.runs_needed, *rule);
    say(options_, Verbosity::debug,
        "config " + std::to_string(c + 1) + ": " + std::to_string(current_runs_) +
            " runs, widest interval " + check.worst + " +/-" +
            fixed(100 * check.worst_half_width, 2) + "% of the mean; next check at " +
            std::to_string(checkpoint) + " runs");
  }
  // A derive function is tried on the first values measured (check_derive_once): without a
  // rule nothing else collects them this early.
  if (!rule && options_.derive && !derive_checked_) collect(collect_values);
  end_config(reason);
}

std::vector<std::string> SweepRuns::run(std::size_t c, int r, const RunHooks& hooks) {
  auto& tracker = RegionTracker::instance();
  if (hooks_.run_begin) hooks_.run_begin(c, r);
  const double pause = conditions_.before_run();
  config_paused_ += pause;
  info_.call(CollectionScope::run, c, r, "");
  if (hooks.before) hooks.before(c);
  tracker.begin_run(c, r);
  const double t0 = now_();
  call_body(c, r);
  // The GPU is read while the run's kernels may still run (after the wait it would be idle).
  // The run's time holds the reading, part of what profiling adds (paced: most runs share one).
  conditions_.read_device();
  if (wait_after_run_) wait_after_run_();
  const double seconds = now_() - t0;
  auto regions = tracker.end_run();
  conditions_.after_run(c, r, seconds, pause);
  if (c == 0 && r == 0) check_baseline_exists(regions);
  if (hooks.after) hooks.after();
  ++current_runs_;
  std::vector<std::string> paths;
  for (const RegionRun& region : regions) paths.push_back(region.path);
  builder_.add_regions(std::move(regions));
  if (hooks_.run_end) hooks_.run_end(c, r);
  report_progress(c, r);
  poll_interrupt();
  return paths;
}

void SweepRuns::report_progress(std::size_t c, int r) const {
  if (!hooks_.progress) return;
  const int planned = options_.stopping ? options_.stopping->max_runs : options_.runs;
  hooks_.progress(
      {c, sweep_.size(), r + 1, planned, now_() - started_, options_.stopping.has_value()});
}

void SweepRuns::replay(std::size_t c, int r, const std::vector<std::string>& expected, int pass) {
  auto& tracker = RegionTracker::instance();
  info_.mute(true);
  tracker.begin_run(c, r);
  try {
    call_body(c, r);
  } catch (...) {
    info_.mute(false);
    throw;
  }
  info_.mute(false);
  std::vector<std::string> paths;
  for (const RegionRun& region : tracker.end_run()) paths.push_back(region.path);
  poll_interrupt();
  if (paths == expected) return;
  throw MeasurementError("replay_mode='" + to_string(options_.replay_mode) + "': pass " +
                         std::to_string(pass + 1) + " of " + where_run(c, r) +
                         " opened the annotations " + quoted_list(paths) + ", the first pass " +
                         quoted_list(expected) +
                         "; the benchmark must repeat the same work in every pass");
}

void SweepRuns::collect(const Collect& collect_values) {
  std::vector<Measurement> measured;
  try {
    measured = collect_values();
  } catch (...) {
    collect_failed_ = true;
    throw;
  }
  builder_.add_measurements(measured);
  conditions_.apply_counter_clocks(builder_.take_clocks());
  const std::size_t first_new = records_.size();
  builder_.flush(records_, /*require_kernels=*/true);
  require_one_kernel_per_region(std::span(records_).subspan(first_new), options_);
  check_derive_once(std::span(records_).subspan(first_new));
}

void SweepRuns::check_derive_once(std::span<const Record> fresh) {
  if (derive_checked_ || fresh.empty()) return;
  try {
    derive_checked_ = check_derive(fresh, options_);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {  // the user's function: said where it first failed
    const Record& first = fresh.front();
    throw UserFunctionError("derive_metric failed on the values of " +
                                where_run(first.config, first.run) + ": " + e.what() +
                                "; the sweep stopped there, and what it measured is kept",
                            first.config, first.run);
  }
}

std::pair<std::vector<Record>, Conditions> SweepRuns::salvage(Backend& backend,
                                                              bool backend_usable) noexcept {
  // When a collect failed, what it returned is lost: the regions waiting for it cannot be
  // trusted (some of their kernels may be missing) and become NaN.
  bool collected = false;
  if (!collect_failed_ && backend_usable) {
    try {
      builder_.add_measurements(backend.salvage());
      collected = true;
    } catch (...) {  // the GPU may be what failed; keep what is already here
    }
  }
  if (!collected) builder_.fail_pending();
  try {
    builder_.flush(records_, /*require_kernels=*/false);
  } catch (...) {
  }
  try {
    if (current_) {
      configs_.push_back({*current_, current_runs_, to_string(StopReason::error),
                          now_() - config_started_ - config_paused_});
      current_.reset();
    }
  } catch (...) {
  }
  return {std::move(records_), take_conditions()};
}

void call_benchmark(const RunBody& body, std::size_t c, int r,
                    const std::function<std::string()>& where) {
  try {
    body(c, r);
  } catch (const Error&) {
    throw;  // kprof's own errors (an annotation used twice...) keep their type
  } catch (const std::exception& e) {
    throw UserFunctionError("the benchmark function failed in " + where() + ": " + e.what(), c, r);
  } catch (...) {
    throw UserFunctionError(
        "the benchmark function failed in " + where() + ": an exception of unknown type", c, r);
  }
}

void SweepRuns::call_body(std::size_t c, int r) {
  call_benchmark(body_, c, r, [this, c, r] { return where_run(c, r); });
}

std::string SweepRuns::where_run(std::size_t c, int r) const {
  return describe_run(c, sweep_.size(), sweep_.config(c).to_string(), r,
                      options_.stopping ? 0 : options_.runs);
}

// normalize_against is checked as soon as the first run shows which annotations exist,
// rather than after the whole sweep.
void SweepRuns::check_baseline_exists(const std::vector<RegionRun>& regions) const {
  const std::string& base = options_.normalize_against;
  if (base.empty()) return;
  std::string seen;
  for (const auto& r : regions) {
    if (r.path == base) return;
    seen += (seen.empty() ? "'" : ", '") + r.path + "'";
  }
  throw AnnotationError("normalize_against='" + base +
                        "' names no annotation of the first run; annotations: " +
                        (seen.empty() ? std::string("none") : seen));
}

}  // namespace kprof::detail
