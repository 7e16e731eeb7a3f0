#include "core/engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>

#include "core/aggregate.hpp"
#include "core/clock_lock.hpp"
#include "core/option_checks.hpp"
#include "core/paced_reading.hpp"
#include "core/record_builder.hpp"
#include "core/region_tracker.hpp"
#include "core/stopping.hpp"
#include "core/thermal_guard.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"

namespace kprof::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::mutex g_once_mutex;
std::set<std::string> g_said;

std::mutex g_poll_mutex;
std::function<void()> g_interrupt_poll;
// Per thread: a profile runs on the thread that called it, and only its front end hears of it.
thread_local std::function<void(std::size_t, int)> t_run_observer;

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

bool says(const Options& o, Verbosity level) {
  return static_cast<int>(o.verbosity) >= static_cast<int>(level);
}

void say(const Options& o, Verbosity level, const std::string& line) {
  if (says(o, level)) log_line("[kprof] " + line);
}

// Stops the backend and ends the tracker's profile on every exit path.
class SessionGuard {
 public:
  SessionGuard(Backend& backend, RegionTracker& tracker) : backend_(backend), tracker_(tracker) {}
  ~SessionGuard() {
    backend_.stop();
    tracker_.end_profile();
  }
  SessionGuard(const SessionGuard&) = delete;
  SessionGuard& operator=(const SessionGuard&) = delete;

 private:
  Backend& backend_;
  RegionTracker& tracker_;
};

// Calls the info collectors of one scope and keeps their values. Annotation-scope collectors
// run on whichever thread opens an annotation, hence the lock.
class InfoStore {
 public:
  explicit InfoStore(const Options& options) : options_(options) {}

  bool has(CollectionScope scope) const {
    return std::any_of(options_.info_collectors.begin(), options_.info_collectors.end(),
                       [&](const InfoCollector& c) { return c.scope == scope; });
  }

  void call(CollectionScope scope, std::size_t config, int run, const std::string& annotation) {
    if (muted_) return;
    for (const InfoCollector& c : options_.info_collectors) {
      if (c.scope != scope) continue;
      InfoValue v;
      v.name = c.name;
      v.scope = to_string(scope);
      v.config = config;
      v.run = run;
      v.annotation = annotation;
      try {
        const InfoResult r = c.collect({scope, config, run, annotation});
        if (const auto* d = std::get_if<double>(&r)) v.value = *d;
        if (const auto* t = std::get_if<std::string>(&r)) v.text = *t;
      } catch (const Error&) {
        throw;  // kprof's own errors (an interrupt from the front end) stop the sweep
      } catch (const std::exception& e) {
        failed(c, e.what());
      } catch (...) {
        failed(c, "an exception of unknown type");
      }
      std::lock_guard lock(mutex_);
      values_.push_back(std::move(v));
    }
  }

  // Range replay: the passes after the first repeat runs whose values are already kept.
  void mute(bool muted) { muted_ = muted; }

  std::vector<InfoValue> take() {
    std::lock_guard lock(mutex_);
    return std::move(values_);
  }

 private:
  // nsight-python: the value is missing and one warning per collector and scope says why.
  void failed(const InfoCollector& c, const std::string& what) {
    {
      std::lock_guard lock(mutex_);
      if (!warned_.insert(c.name + "/" + to_string(c.scope)).second) return;
    }
    // Logged outside the lock: a front end's log sink may wait for its interpreter lock,
    // which another thread opening an annotation may hold while it waits for this lock.
    say(options_, Verbosity::info,
        "warning: info collector '" + c.name + "' (" + to_string(c.scope) +
            " scope) threw: " + what + "; its value is missing wherever it fails");
  }

  const Options& options_;
  std::mutex mutex_;
  std::vector<InfoValue> values_;
  std::set<std::string> warned_;
  std::atomic<bool> muted_{false};
};

// NVBench's throttle detection: a run whose SM clock fell below `threshold` of the rated one.
void set_throttled(RunInfo& info, const SessionInfo& session, double threshold) {
  if (!std::isnan(info.sm_clock_khz) && session.compute_clock_khz > 0 && threshold > 0)
    info.throttled = info.sm_clock_khz < threshold * static_cast<double>(session.compute_clock_khz);
}

// One run's RunInfo from the readings taken before and after it. The SM clock is the mean of
// the readings not taken while the GPU idled (NVML's GpuIdle reason: the clock then says
// nothing about the run), or of all readings when every one was idle.
RunInfo run_info(std::size_t config, int run, double seconds, double pause,
                 const std::vector<DeviceReading>& readings, const SessionInfo& session,
                 double threshold) {
  RunInfo info;
  info.config = config;
  info.run = run;
  info.seconds = seconds;
  info.pause_s = pause;
  // Only readings of a busy GPU say what clock its kernels ran at: an idle GPU parks its clock
  // low, and a reading of 0 (seen on the H200 VM) is no reading at all.
  std::vector<double> busy;
  for (const DeviceReading& r : readings) {
    if (r.sm_clock_khz && *r.sm_clock_khz > 0 && !taken_idle(r)) busy.push_back(*r.sm_clock_khz);
    if (r.temperature_c && !(info.temperature_c >= *r.temperature_c))
      info.temperature_c = *r.temperature_c;
    if (r.clock_event_reasons)
      info.clock_event_reasons = std::max<std::int64_t>(info.clock_event_reasons, 0) |
                                 static_cast<std::int64_t>(*r.clock_event_reasons);
  }
  const auto& clocks = busy;
  if (!clocks.empty()) {
    double sum = 0;
    for (double c : clocks) sum += c;
    info.sm_clock_khz = sum / static_cast<double>(clocks.size());
  }
  set_throttled(info, session, threshold);
  return info;
}

class Sweeper {
 public:
  Sweeper(Backend& backend, const Options& options, const Sweep& sweep, const SweepHooks& hooks,
          const SweepServices& services, const SessionInfo& session)
      : backend_(backend),
        options_(options),
        sweep_(sweep),
        hooks_(hooks),
        session_(session),
        builder_(options, sweep),
        info_(options),
        now_(services.now_s ? services.now_s : steady_seconds),
        sleep_(services.sleep_s ? services.sleep_s : real_sleep) {
    started_ = now_();
    device_ = services.device;
    if (device_ != nullptr && !device_->unavailable().empty()) {
      unavailable_device(device_->unavailable());
      device_ = nullptr;
    } else if (device_ == nullptr) {
      unavailable_device(services.device_unavailable);
    }
    make_thermal_guard(services);
  }

  ~Sweeper() { RegionTracker::instance().set_open_listener(nullptr); }
  Sweeper(const Sweeper&) = delete;
  Sweeper& operator=(const Sweeper&) = delete;

  void run(const RunBody& body) {
    // One call per config that is not measured, before annotation-scope collectors listen:
    // range replay learns how deep the regions nest, and counters size the profiler's sessions.
    const int depth = backend_.wants_unmeasured_calls() ? unmeasured_calls(body) : 1;
    if (info_.has(CollectionScope::annotation))
      RegionTracker::instance().set_open_listener(
          [this](const std::string& path, std::size_t config, int run) {
            info_.call(CollectionScope::annotation, config, run, path);
          });
    info_.call(CollectionScope::once, 0, -1, "");
    if (backend_.user_replay()) {
      run_passes(body, depth);
      return;
    }
    for (std::size_t c = 0; c < sweep_.size(); ++c) run_config(body, c);
    if (!backend_.collects_per_config() && !options_.stopping) collect();
  }

  std::vector<Record> take_records() { return std::move(records_); }
  Conditions take_conditions() { return {std::move(configs_), std::move(runs_), info_.take()}; }
  const ThermalGuard* thermal() const { return thermal_ ? &*thermal_ : nullptr; }

  // What was measured before a failure: the runs that completed, without the checks.
  std::pair<std::vector<Record>, Conditions> salvage() noexcept {
    // When a collect failed, what it returned is lost: the regions waiting for it cannot be
    // trusted (some of their kernels may be missing) and become NaN.
    bool collected = false;
    if (!collect_failed_) {
      try {
        builder_.add_measurements(backend_.collect());
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

 private:
  static double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  static void real_sleep(double s) {
    std::this_thread::sleep_for(std::chrono::duration<double>(s));
  }

  void unavailable_device(const std::string& why) {
    if (!says(options_, Verbosity::info)) return;
    log_once("device:" + why, "[kprof] NVML cannot read the GPU (" +
                                  (why.empty() ? std::string("no NVML") : why) +
                                  "): MeasuredClock, Temperature and ThrottledRuns are NaN");
  }

  void make_thermal_guard(const SweepServices& services) {
    if (options_.thermal_mode == ThermalMode::off) return;
    const auto off = [&](const std::string& why) {
      if (says(options_, Verbosity::info))
        log_once("thermal:" + why, "[kprof] thermal guard off: " + why);
    };
    if (services.thermal == nullptr) {
      off(services.thermal_unavailable.empty() ? "no temperature source"
                                               : services.thermal_unavailable);
      return;
    }
    ThermalGuard::Log debug;
    if (says(options_, Verbosity::debug))
      debug = [](const std::string& line) { log_line("[kprof] " + line); };
    thermal_source_.emplace(*services.thermal, now_);
    thermal_.emplace(
        thermal_settings(options_), *thermal_source_, now_,
        [this](double s) {
          sleep_(s);
          poll_interrupt();
        },
        debug);
    if (!thermal_->supported()) {
      off("the GPU does not report its thermal headroom (T.Limit)");
      thermal_.reset();
    }
  }

  static void poll_interrupt() {
    std::function<void()> poll;
    {
      std::lock_guard lock(g_poll_mutex);
      poll = g_interrupt_poll;
    }
    if (poll) poll();
  }

  // --- unmeasured calls, and range replay: the benchmark runs once per pass ------------------

  // One call per config that is not measured: how many regions do its runs open, and how deep
  // do they nest? Returns the deepest nesting. A config whose call fails stops the calls; its
  // error is raised when the sweep reaches it, so that the configs before it are measured.
  int unmeasured_calls(const RunBody& body) {
    auto& tracker = RegionTracker::instance();
    int depth = 1;
    widths_.assign(sweep_.size(), 0);
    for (std::size_t c = 0; c < sweep_.size(); ++c) {
      tracker.begin_run(c, 0);
      try {
        call_body(body, c, 0);
      } catch (const UserFunctionError&) {
        end_run_quietly();
        if (c == 0) throw;
        try {
          backend_.unmeasured_call_done(c, 0);  // forgets what it launched
        } catch (const Error&) {                // the user's error is the one to report
        }
        // The user's function failed: the configs before this one can still be measured.
        // Anything else (a CUDA error, an interrupt) ends the profile now.
        defer_call_failure(c);
        return depth;
      } catch (...) {
        end_run_quietly();
        throw;
      }
      const std::vector<RegionRun> regions = tracker.end_run();
      depth = std::max(depth, nesting(regions));
      try {
        widths_[c] = backend_.unmeasured_call_done(c, regions.size());
      } catch (const MeasurementError&) {  // work the backend cannot measure (a CUDA graph in
        defer_call_failure(c);             // application replay)
        return depth;
      }
    }
    return depth;
  }

  // From the handler of config `c`'s failed unmeasured call: keeps the error for when the sweep
  // reaches `c`, so that the configs before it are measured; config 0's is rethrown now.
  void defer_call_failure(std::size_t c) {
    if (c == 0) throw;
    failed_call_ = {c, std::current_exception()};
  }

  // Ends the tracker's run after a failed call, whose own error is the one to report.
  static void end_run_quietly() noexcept {
    try {
      (void)RegionTracker::instance().end_run();
    } catch (...) {  // an annotation the failure left open
    }
  }

  // Whether config `c` is the one whose unmeasured call failed, or comes after it.
  bool call_failed(std::size_t c) const { return failed_call_.second && c >= failed_call_.first; }

  // The sweep reached the config whose unmeasured call failed.
  void raise_if_call_failed(std::size_t c) const {
    if (call_failed(c)) std::rethrow_exception(failed_call_.second);
  }

  // Regions nest through their parents; annotations open around the whole profile are in the
  // paths but are no regions.
  static int nesting(const std::vector<RegionRun>& regions) {
    std::unordered_map<RegionId, RegionId> parent;
    for (const RegionRun& r : regions) parent[r.id] = r.parent;
    int depth = 1;
    for (const RegionRun& r : regions) {
      int d = 1;
      for (RegionId p = r.parent; p != kNoRegion && parent.contains(p); p = parent[p]) ++d;
      depth = std::max(depth, d);
    }
    return depth;
  }

  // Every (config, run) of the sweep, pass-major: a session runs as many of them as its
  // counter data holds once per pass, so the profiler's fixed costs are paid once per session
  // rather than once per run (measured on the H200: ~2.5 ms per pass, ~10 ms per later session;
  // the first Start costs in proportion to the session's capacity: docs/metrics.md). A session
  // takes the next run while its config's unmeasured call says the run fits.
  void run_passes(const RunBody& body, int depth) {
    std::vector<std::pair<std::size_t, int>> units;
    for (std::size_t c = 0; c < sweep_.size(); ++c)
      for (int r = 0; r < options_.runs; ++r) units.emplace_back(c, r);
    for (std::size_t next = 0; next < units.size();) next = run_session(body, units, next, depth);
  }

  std::size_t run_session(const RunBody& body,
                          const std::vector<std::pair<std::size_t, int>>& units, std::size_t first,
                          int depth) {
    raise_if_call_failed(units[first].first);
    const std::size_t capacity = backend_.session_capacity();
    backend_.begin_session(depth);
    std::vector<std::vector<std::string>> paths;  // the first pass's regions, per unit
    std::size_t end = first;
    std::size_t used = 0;
    bool done = false;
    const int passes = backend_.passes_per_session(depth);
    for (int pass = 0; !done; ++pass) {
      backend_.begin_pass();
      if (pass > 0)  // the first pass reports its runs as any sweep does
        say(options_, Verbosity::info,
            to_string(options_.replay_mode) + " replay: pass " + std::to_string(pass + 1) + " of " +
                std::to_string(passes) + " over " + std::to_string(end - first) + " run(s)");
      if (pass == 0) {
        do {
          const auto [c, r] = units[end++];
          if (r == 0) begin_config(c);
          paths.push_back(run_once(body, c, r));
          ++current_runs_;
          const std::size_t ranges = backend_.ranges_of_run(paths.back().size());
          used += ranges;
          backend_.fit_run(ranges);
          widths_[c] = std::max(widths_[c], ranges);  // wider than its call said
          if (r + 1 == options_.runs) end_config(StopReason::runs);
        } while (end < units.size() && fits(units[end].first, used, capacity));
      } else {
        info_.mute(true);
        for (std::size_t u = first; u < end; ++u)
          replay_once(body, units[u].first, units[u].second, paths[u - first], pass);
        info_.mute(false);
      }
      done = backend_.end_pass();
    }
    collect();
    return end;
  }

  // Whether a run of config `c` fits a session holding `used` of `capacity` ranges; a config
  // whose unmeasured call failed starts a session of its own, where its error is raised.
  bool fits(std::size_t c, std::size_t used, std::size_t capacity) const {
    return !call_failed(c) && used + widths_[c] <= capacity;
  }

  // A later pass of one (config, run): the same regions must open in the same order.
  void replay_once(const RunBody& body, std::size_t c, int r,
                   const std::vector<std::string>& expected, int pass) {
    auto& tracker = RegionTracker::instance();
    tracker.begin_run(c, r);
    call_body(body, c, r);
    std::vector<std::string> paths;
    for (const RegionRun& region : tracker.end_run()) paths.push_back(region.path);
    if (paths == expected) return;
    const auto list = [](const std::vector<std::string>& p) {
      std::string text;
      for (const auto& x : p) text += (text.empty() ? "'" : ", '") + x + "'";
      return "[" + text + "]";
    };
    throw MeasurementError(
        "replay_mode='" + to_string(options_.replay_mode) + "': pass " + std::to_string(pass + 1) +
        " of " + where_run(c, r) + " opened the annotations " + list(paths) + ", the first pass " +
        list(expected) + "; the benchmark must repeat the same work in every pass");
  }

  void begin_config(std::size_t c) {
    if (hooks_.config_begin) hooks_.config_begin(c);
    current_ = c;
    current_runs_ = 0;
    config_started_ = now_();
    config_paused_ = 0;
    info_.call(CollectionScope::config, c, -1, "");
  }

  void end_config(StopReason reason) {
    const ConfigInfo done{*current_, current_runs_, to_string(reason),
                          now_() - config_started_ - config_paused_};
    configs_.push_back(done);
    current_.reset();
    if (hooks_.config_end) hooks_.config_end(done);
  }

  void run_config(const RunBody& body, std::size_t c) {
    raise_if_call_failed(c);
    begin_config(c);
    const std::size_t first_record = records_.size();
    const std::optional<StoppingRule>& rule = options_.stopping;
    int checkpoint = rule ? rule->min_runs : options_.runs;
    StopReason reason = StopReason::runs;
    while (true) {
      run_once(body, c, current_runs_);
      ++current_runs_;
      const double busy = now_() - config_started_ - config_paused_;
      const bool out_of_time = rule && rule->time_budget_s > 0 && busy >= rule->time_budget_s;
      if (current_runs_ < checkpoint && !out_of_time) continue;
      // Activity buffers are flushed once per checkpoint, never per run: see stopping.hpp.
      if (!rule) {
        if (backend_.collects_per_config()) collect();
        break;
      }
      collect();
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
    end_config(reason);
  }

  void collect() {
    std::vector<Measurement> measured;
    try {
      measured = backend_.collect();
    } catch (...) {
      collect_failed_ = true;
      throw;
    }
    builder_.add_measurements(measured);
    apply_counter_clocks(builder_.take_clocks());
    builder_.flush(records_, /*require_kernels=*/true);
  }

  // The clock the kernels ran at, counted by the GPU, replaces NVML's readings around the run.
  void apply_counter_clocks(const std::map<std::pair<std::size_t, int>, double>& clocks) {
    if (clocks.empty()) return;
    for (RunInfo& run : runs_) {
      const auto it = clocks.find({run.config, run.run});
      if (it == clocks.end()) continue;
      run.sm_clock_khz = it->second;
      run.throttled.reset();
      set_throttled(run, session_, options_.throttle_threshold);
      counter_clocks_ = true;
    }
  }

 public:
  // Where the runs' SM clock came from (SessionInfo::clock_source).
  std::string clock_source() const {
    if (counter_clocks_) return "counters";
    if (kernel_clocks_) return "probe kernel";
    const bool nvml = std::any_of(runs_.begin(), runs_.end(),
                                  [](const RunInfo& r) { return !std::isnan(r.sm_clock_khz); });
    return nvml ? "nvml" : "";
  }

 private:
  // Runs the benchmark once, measured; returns the paths of the regions it opened.
  std::vector<std::string> run_once(const RunBody& body, std::size_t c, int r) {
    auto& tracker = RegionTracker::instance();
    if (hooks_.run_begin) hooks_.run_begin(c, r);
    const double pause = thermal_ ? thermal_->before_run() : 0;
    config_paused_ += pause;
    info_.call(CollectionScope::run, c, r, "");
    // The reading is taken just after the run (before it, the GPU idles and its clock says
    // nothing about the run), paced: a run shortly after another shares its reading.
    std::vector<DeviceReading> readings;
    backend_.before_run(c);
    tracker.begin_run(c, r);
    const double t0 = now_();
    call_body(body, c, r);
    const double seconds = now_() - t0;
    auto regions = tracker.end_run();
    if (device_ != nullptr)
      readings.push_back(device_reading_.get([this] { return device_->read_after_run(); }));
    for (const DeviceReading& reading : readings)
      kernel_clocks_ = kernel_clocks_ || (reading.clock_from_kernel && reading.sm_clock_khz);
    runs_.push_back(
        run_info(c, r, seconds, pause, readings, session_, options_.throttle_threshold));
    if (c == 0 && r == 0) check_baseline_exists(regions);
    backend_.after_run();
    std::vector<std::string> paths;
    for (const RegionRun& region : regions) paths.push_back(region.path);
    builder_.add_regions(std::move(regions));
    if (hooks_.run_end) hooks_.run_end(c, r);
    if (hooks_.progress) {
      const int planned = options_.stopping ? options_.stopping->max_runs : options_.runs;
      hooks_.progress(
          {c, sweep_.size(), r + 1, planned, now_() - started_, options_.stopping.has_value()});
    }
    if (t_run_observer) t_run_observer(c, r);
    return paths;
  }

  void call_body(const RunBody& body, std::size_t c, int r) {
    try {
      body(c, r);
    } catch (const Error&) {
      throw;  // kprof's own errors (an annotation used twice...) keep their type
    } catch (const std::exception& e) {
      throw UserFunctionError(where(c, r) + ": " + e.what(), c, r);
    } catch (...) {
      throw UserFunctionError(where(c, r) + ": an exception of unknown type", c, r);
    }
  }

  std::string where(std::size_t c, int r) const {
    return "the benchmark function failed in " + where_run(c, r);
  }

  std::string where_run(std::size_t c, int r) const {
    return "config " + std::to_string(c) + " (" + sweep_.config(c).to_string() + "), run " +
           std::to_string(r);
  }

  // normalize_against is checked as soon as the first run shows which annotations exist,
  // rather than after the whole sweep.
  void check_baseline_exists(const std::vector<RegionRun>& regions) const {
    const std::string& base = options_.normalize_against;
    if (base.empty()) return;
    std::string seen;
    for (const auto& r : regions) {
      if (r.path == base) return;
      seen += (seen.empty() ? "'" : ", '") + r.path + "'";
    }
    throw AnnotationError("normalize_against='" + base +
                          "' names no annotation of the first run; "
                          "annotations: " +
                          (seen.empty() ? std::string("none") : seen));
  }

  Backend& backend_;
  const Options& options_;
  const Sweep& sweep_;
  const SweepHooks& hooks_;
  const SessionInfo& session_;
  RecordBuilder builder_;
  InfoStore info_;
  std::function<double()> now_;
  std::function<void(double)> sleep_;
  DeviceProbe* device_ = nullptr;
  PacedReading<DeviceReading> device_reading_{now_};
  std::optional<PacedTemperature> thermal_source_;
  std::optional<ThermalGuard> thermal_;
  std::vector<Record> records_;
  std::vector<ConfigInfo> configs_;
  std::vector<RunInfo> runs_;
  double started_ = 0;
  std::optional<std::size_t> current_;  // the config being run
  int current_runs_ = 0;
  double config_started_ = 0;
  double config_paused_ = 0;
  bool collect_failed_ = false;
  bool counter_clocks_ = false;
  bool kernel_clocks_ = false;       // a clock reading came from the probe kernel
  std::vector<std::size_t> widths_;  // per config: the ranges a run takes in a user-replay session
  std::pair<std::size_t, std::exception_ptr> failed_call_;  // the first unmeasured call that failed
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

void describe_conditions(SessionInfo& session, const Options& options) {
  session.runs = options.stopping ? 0 : options.runs;
  session.clock_control = to_string(options.clock_control);
  session.thermal_mode = to_string(options.thermal_mode);
  session.throttle_threshold = options.throttle_threshold;
  if (options.stopping) {
    session.stop_rel_half_width = options.stopping->rel_half_width;
    session.stop_min_runs = options.stopping->min_runs;
    session.stop_max_runs = options.stopping->max_runs;
    session.stop_time_budget_s = options.stopping->time_budget_s;
  }
}

// After the sweep: how often the clock was low and how long the guard paused.
void report_conditions(const Options& options, const SessionInfo& session,
                       const Conditions& conditions, const ThermalGuard* thermal) {
  const auto throttled =
      std::count_if(conditions.runs.begin(), conditions.runs.end(),
                    [](const RunInfo& r) { return r.throttled.value_or(false); });
  if (throttled > 0)
    say(options, Verbosity::info,
        "warning: " + std::to_string(throttled) + " of " + std::to_string(conditions.runs.size()) +
            " runs ran with the SM clock below " + fixed(100 * options.throttle_threshold, 0) +
            "% of the rated " + std::to_string(session.compute_clock_khz / 1000) +
            " MHz (throttled; see ThrottledRuns and the runs' MeasuredClock)");
  if (thermal != nullptr && thermal->pauses() > 0)
    say(options, Verbosity::info,
        "thermal guard paused " + std::to_string(thermal->pauses()) + " time(s), " +
            fixed(thermal->paused_s(), 1) + " s in all; thermal_cont is now " +
            std::to_string(thermal->thermal_cont()) + " C");
}

}  // namespace

void log_once(const std::string& key, const std::string& line) {
  {
    std::lock_guard lock(g_once_mutex);
    if (!g_said.insert(key).second) return;
  }
  log_line(line);
}

void set_interrupt_poll(std::function<void()> poll) {
  std::lock_guard lock(g_poll_mutex);
  g_interrupt_poll = std::move(poll);
}

bool set_run_observer(std::function<void(std::size_t config, int run)> observer) {
  if (observer && t_run_observer) return false;
  t_run_observer = std::move(observer);
  return true;
}

Results run_sweep(Backend& backend, const Options& options, const Sweep& sweep, const RunBody& body,
                  const SweepHooks& hooks, const SweepServices& services) {
  SessionInfo session = backend.describe();
  describe_conditions(session, options);
  std::optional<ClockLock> clocks;  // given back on every way out of this function
  if (options.clock_control == ClockControl::base) {
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
  auto& tracker = RegionTracker::instance();
  tracker.begin_profile();
  std::vector<Record> records;
  Conditions conditions;
  {
    SessionGuard guard(backend, tracker);
    backend.start(options);
    if (hooks.started) hooks.started(session);
    Sweeper sweeper(backend, options, sweep, hooks, services, session);
    try {
      sweeper.run(body);
    } catch (Error& e) {
      auto [partial_records, partial_conditions] = sweeper.salvage();
      e.set_partial_results(
          partial_results(session, sweep, std::move(partial_records), partial_conditions, options));
      throw;
    }
    session.clock_source = sweeper.clock_source();
    records = sweeper.take_records();
    conditions = sweeper.take_conditions();
    report_conditions(options, session, conditions, sweeper.thermal());
  }
  clocks.reset();
  session.profiler_seconds = backend.profiler_seconds();
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
