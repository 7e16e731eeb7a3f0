#include "cuda/counter_backend.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/engine.hpp"
#include "core/range_passes.hpp"
#include "core/region_tracker.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_facts.hpp"
#include "cuda/launch_apis.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "kprof/metrics.hpp"

namespace kprof::detail {
namespace {

// Ranges one session holds at most; a larger sweep runs in several sessions.
constexpr std::size_t kMaxCapacity = 1 << 16;

bool graph_launched(const std::vector<LaunchAttribution::Launch>& launches) {
  return std::any_of(launches.begin(), launches.end(),
                     [](const LaunchAttribution::Launch& l) { return l.graph; });
}

// CUPTI's dimension units in the short spelling kprof's durations and tables use.
std::string short_unit(const std::string& unit) {
  if (unit == "nanosecond" || unit == "nsecond") return "ns";
  if (unit == "byte") return "B";
  if (unit == "percent") return "%";
  if (unit == "byte/second") return "B/s";
  return unit;
}

}  // namespace

CounterBackend::CounterBackend(const Options& options) : options_(options) {}

std::vector<std::string> CounterBackend::collected_metrics() const {
  std::vector<std::string> wanted = metrics::expand(options_.metrics);
  if (std::find(wanted.begin(), wanted.end(), kClockMetric) != wanted.end()) return wanted;
  const std::optional<std::string> chip = metrics::current_chip();
  if (!chip) return wanted;
  const metrics::MetricCatalog catalog = metrics::catalog(*chip);
  std::vector<std::string> with_clock = wanted;
  with_clock.push_back(kClockMetric);
  // The clock rides along only where it costs no extra pass.
  return catalog.passes(with_clock) == catalog.passes(wanted) ? with_clock : wanted;
}

SessionInfo CounterBackend::describe() {
  const std::vector<std::string> collected = collected_metrics();
  int passes = 0;
  if (const std::optional<std::string> chip = metrics::current_chip())
    passes = metrics::catalog(*chip).passes(collected);
  SessionInfo s = describe_session(options_, "cupti-range-profiler", passes);
  s.metrics = metrics::expand(options_.metrics);
  return s;
}

void CounterBackend::start(const Options& options) {
  stop();
  options_ = options;
  try {
    check_cuda(cudaFree(nullptr), "cudaFree(0)");
    attribution_ = std::make_unique<LaunchAttribution>(flushes_before_kernels() ? &flush_ : nullptr,
                                                       &flush_pause_);
    subscriber_.subscribe(&LaunchAttribution::callback, attribution_.get());
    if (options.cache_control == CacheControl::all) flush_.allocate();
    subscriber_.enable(CUPTI_CB_DOMAIN_RUNTIME_API, runtime_launch_cbids());
    subscriber_.enable(CUPTI_CB_DOMAIN_DRIVER_API, driver_launch_cbids());

    capacity_ = kSessionRanges;
    run_ranges_.clear();
    logged_before_run_ = 0;
    session_complete_ = false;
    metrics_ = collected_metrics();
    profiler_ = std::make_unique<RangeProfiler>(metrics_, kernel_replay_flushes());
    warn_of_warm_later_passes();
    flush_pause_.reset();
    flush_pause_.arm(pauses_for_flushes() ? profiler_.get() : nullptr);
    const metrics::MetricCatalog catalog = metrics::catalog(profiler_->chip());
    const std::vector<std::string> wanted = metrics::expand(options.metrics);
    units_.clear();
    reported_.clear();
    clock_index_ = -1;
    for (std::size_t i = 0; i < metrics_.size(); ++i) {
      units_.push_back(short_unit(catalog.describe_brief(metrics_[i]).unit));
      reported_.push_back(std::find(wanted.begin(), wanted.end(), metrics_[i]) != wanted.end());
      if (metrics_[i] == kClockMetric) clock_index_ = static_cast<int>(i);
    }
    attribution_->log_launches(true);
    if (user_replay()) {
      RegionTracker::instance().set_range_hooks(
          {[this](RegionId id, const std::string& path, std::size_t depth) {
             on_region_open(id, path, depth);
           },
           [this](RegionId id) { on_region_close(id); }});
      hooks_installed_ = true;
    }
  } catch (...) {
    stop();
    throw;
  }
}

void CounterBackend::warn_of_warm_later_passes() const {
  if (!kernel_replay_flushes() || profiler_->passes() == 1 || profiler_->resets_cache_per_pass() ||
      options_.verbosity == Verbosity::silent)
    return;
  log_once("warm-later-passes",
           "[kprof] replay_mode='kernel', " + std::to_string(profiler_->passes()) +
               " passes: this CUPTI (before 13.4) restores each kernel's memory before its "
               "later passes and cannot flush the L2 between them, so those passes start warm "
               "(SM and DRAM % of kernels under ~100 us can read several points off Nsight "
               "Compute's); replay_mode='application' flushes before every pass");
}

void CounterBackend::stop() noexcept {
  if (hooks_installed_) RegionTracker::instance().set_range_hooks({});
  hooks_installed_ = false;
  subscriber_.unsubscribe();
  if (attribution_ != nullptr) attribution_->wait_idle();  // no callback uses the profiler now
  flush_pause_.arm(nullptr);
  if (profiler_ != nullptr) {
    profiler_seconds_ = cupti_seconds();
    if (options_.verbosity == Verbosity::debug) log_costs();
  }
  profiler_.reset();  // stops a pass in flight, disables the range profiler
  if (attribution_ != nullptr) {
    attribution_->log_launches(false);
    attribution_->reset();
  }
  drained_.clear();
  flush_pause_.reset();
  flush_.release();
}

// The wall time spent in CUPTI: its calls, and with auto ranges (kernel and application
// replay) the launch calls, in which it profiles each kernel (less the pauses for flushes,
// counted in Start and Stop already).
double CounterBackend::cupti_seconds() const noexcept {
  const RangeProfiler::Costs& c = profiler_->costs();
  const double calls =
      c.enable_s + c.session_s + c.start_s + c.stop_s + c.ranges_s + c.decode_s + c.evaluate_s;
  if (user_ranges() || attribution_ == nullptr) return calls;
  return calls + attribution_->launch_seconds() - flush_pause_.seconds();
}

void CounterBackend::log_costs() const noexcept {
  try {
    const RangeProfiler::Costs& c = profiler_->costs();
    char line[512];
    std::snprintf(
        line, sizeof line,
        "[kprof] range profiler: %d session(s), %d pass(es), %zu range(s); enable %.3f s, "
        "sessions %.3f s, start %.3f s, stop %.3f s, push/pop %.3f s, decode %.3f s, "
        "evaluate %.3f s",
        c.sessions, c.passes, c.ranges, c.enable_s, c.session_s, c.start_s, c.stop_s, c.ranges_s,
        c.decode_s, c.evaluate_s);
    log_line(line);
  } catch (...) {
  }
}

// --- kernel replay ----------------------------------------------------------------------------

void CounterBackend::start_kernel_session() {
  profiler_->begin_session(profiler_->passes() == 1 ? RangeProfiler::Mode::auto_range_user_replay
                                                    : RangeProfiler::Mode::kernel_replay,
                           capacity_);
  profiler_->start_pass();
}

void CounterBackend::drain_kernel_session() {
  flush_pause_.rethrow();
  if (profiler_ == nullptr || !profiler_->in_pass()) return;
  // A fault of the benchmark's kernels is its own, whatever the profiler makes of it.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  try {
    // Kernel replay ran every pass inside the kernel launches; a 1-pass set has but one.
    if (!profiler_->end_pass())
      throw MeasurementError(
          "kprof internal error: the range profiler wants another pass of a kernel-replay "
          "session");
  } catch (const CudaError& e) {  // a 1-pass session runs auto ranges under user replay
    raise_failed_stop(e.what(),
                      profiler_->passes() == 1 && graph_launched(attribution_->take_launches()));
  }
  const std::vector<RangeValues> ranges = profiler_->decode();
  std::vector<Measurement> measured = kernel_measurements(ranges, take_launches());
  std::move(measured.begin(), measured.end(), std::back_inserter(drained_));
  logged_before_run_ = 0;
}

bool CounterBackend::flushes_before_kernels() const {
  return options_.cache_control == CacheControl::all && !user_ranges();
}

bool CounterBackend::kernel_replay_flushes() const {
  return flushes_before_kernels() && !user_replay();
}

bool CounterBackend::pauses_for_flushes() const {
  return kernel_replay_flushes() && profiler_ != nullptr && profiler_->passes() > 1;
}

void CounterBackend::raise_failed_stop(const char* what, bool after_graph) const {
  if (after_graph)
    throw MeasurementError(graph_launch_with_auto_ranges(to_string(options_.replay_mode), what));
  throw;
}

std::vector<LaunchAttribution::Launch> CounterBackend::take_launches() {
  std::vector<LaunchAttribution::Launch> launches = attribution_->take_launches();
  attribution_->correlations().clear();  // only the activity backend reads them
  attribution_->rethrow_problem();
  return launches;
}

// Kernel replay: a session is open whenever the benchmark runs (opened here rather than after
// each collection, so that the last collection leaves none behind), with room for the run as
// its config's unmeasured call counted it.
void CounterBackend::before_run(std::size_t config) {
  if (user_replay() || profiler_ == nullptr) return;
  flush_pause_.rethrow();  // a pass it failed to stop or start leaves the session unusable
  const std::size_t needs = config < run_ranges_.size() ? run_ranges_[config] : 0;
  if (profiler_->in_pass() && attribution_->launches_logged() + needs > profiler_->max_ranges())
    drain_kernel_session();
  if (profiler_->in_pass()) return;
  (void)attribution_->take_launches();  // launches between runs belong to no session
  start_kernel_session();
}

// Kernel replay: a session is decoded before the next run could overflow it, room is kept for
// twice the largest run seen. Application replay: the engine fills its sessions by the count.
void CounterBackend::after_run() {
  if (user_ranges() || attribution_ == nullptr) return;
  const std::size_t logged = attribution_->launches_logged();
  last_run_ranges_ = logged - std::min(logged, logged_before_run_);
  logged_before_run_ = logged;
  if (user_replay()) return;
  fit_run(last_run_ranges_);
  // The open session holds what it was created for, whatever the next one will hold.
  if (logged + 2 * last_run_ranges_ <= profiler_->max_ranges()) return;
  drain_kernel_session();
}

// The next session grows when one run needs more than a quarter of it.
void CounterBackend::fit_run(std::size_t ranges) {
  while (capacity_ < kMaxCapacity && ranges * 4 > capacity_) capacity_ *= 2;
}

std::vector<Measurement> CounterBackend::collect() {
  if (profiler_ == nullptr) throw CudaError("kprof internal error: collect() before start()");
  if (user_replay()) {
    // A session whose passes did not all run (a failure mid-sweep) holds nothing usable.
    if (!session_complete_) return {};
    session_complete_ = false;
    const std::vector<RangeValues> ranges = profiler_->decode();
    return user_ranges() ? range_measurements(ranges)
                         : kernel_measurements(ranges, first_pass_launches_);
  }
  drain_kernel_session();
  return std::exchange(drained_, {});
}

std::vector<Measurement> CounterBackend::kernel_measurements(
    const std::vector<RangeValues>& ranges,
    const std::vector<LaunchAttribution::Launch>& launches) {
  if (ranges.size() != launches.size())
    throw MeasurementError(unpaired_auto_ranges(to_string(options_.replay_mode), ranges.size(),
                                                launches.size(), graph_launched(launches)));
  // Auto ranges come back in launch order; their names are not relied on (whether they
  // restart at "0" in each session of one enabled profiler is not documented).
  std::vector<Measurement> out;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const LaunchAttribution::Launch& launch = launches[i];
    if (launch.region == kNoRegion) continue;
    out.push_back(measurement(launch.region, launch.kernel, i, ranges[i].values));
  }
  return out;
}

Measurement CounterBackend::measurement(RegionId region, std::string mangled, std::uint64_t order,
                                        const std::vector<double>& values) {
  Measurement m;
  m.region = region;
  m.kernel = mangled.empty() ? std::string("(unnamed kernel)") : names_.demangled(mangled);
  m.mangled = std::move(mangled);
  m.order = order;
  for (std::size_t k = 0; k < metrics_.size() && k < values.size(); ++k) {
    if (static_cast<int>(k) == clock_index_) m.sm_clock_hz = values[k];
    if (reported_[k]) m.values.push_back({metrics_[k], values[k], units_[k]});
  }
  return m;
}

// --- range replay -----------------------------------------------------------------------------

void CounterBackend::begin_session(int depth) {
  if (user_ranges())
    profiler_->begin_session(RangeProfiler::Mode::user_replay, capacity_, depth);
  else
    profiler_->begin_session(RangeProfiler::Mode::auto_range_user_replay, capacity_);
  session_depth_ = depth;
  session_complete_ = false;
  pass_ = -1;
  first_pass_regions_.clear();
  first_pass_paths_.clear();
  first_pass_kernels_.clear();
  first_pass_launches_.clear();
  first_pass_order_.clear();
  parent_range_.clear();
}

void CounterBackend::begin_pass() {
  ++pass_;
  opened_in_pass_ = 0;
  range_of_.clear();
  open_ranges_.clear();
  (void)attribution_->take_launches();  // launches between passes belong to no range
  logged_before_run_ = 0;
  profiler_->start_pass();
}

bool CounterBackend::end_pass() {
  std::vector<LaunchAttribution::Launch> launches = take_launches();
  check_pass_launches(launches);
  const bool graph = graph_launched(launches);
  if (pass_ == 0) first_pass_launches_ = std::move(launches);
  try {
    session_complete_ = profiler_->end_pass();
  } catch (const CudaError& e) {
    raise_failed_stop(e.what(), !user_ranges() && graph);
  }
  return session_complete_;
}

// Range replay needs a range per region, kernel and application replay one per launch (and
// per flush, unless flushes are paused); no session is open during the call, so nothing of it
// was profiled.
std::size_t CounterBackend::unmeasured_call_done(std::size_t config, std::size_t regions) {
  if (attribution_ == nullptr) return regions;
  // Its kernels finish before any range opens, and their faults are its config's.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after an unmeasured call)");
  const std::vector<LaunchAttribution::Launch> launches = take_launches();
  // No session is open now, so no flush was paused: the runs' paused flushes are no ranges.
  const auto flushes =
      pauses_for_flushes()
          ? std::count_if(launches.begin(), launches.end(),
                          [](const LaunchAttribution::Launch& l) { return l.flush; })
          : 0;
  // CUPTI fails the Stop of auto ranges under user replay after a graph launch: said before
  // any pass runs.
  if (options_.replay_mode == ReplayMode::application && graph_launched(launches))
    throw MeasurementError(graph_launch_with_auto_ranges(
        "application", "a CUDA graph was launched in the unmeasured call of config " +
                           std::to_string(config + 1)));
  const std::size_t ranges =
      user_ranges() ? regions : launches.size() - static_cast<std::size_t>(flushes);
  if (run_ranges_.size() <= config) run_ranges_.resize(config + 1, 0);
  run_ranges_[config] = ranges;
  fit_run(ranges);
  return ranges;
}

void CounterBackend::on_region_open(RegionId id, const std::string& path, std::size_t depth) {
  if (!in_user_pass()) return;
  if (user_ranges() && depth > static_cast<std::size_t>(session_depth_))
    throw MeasurementError("replay_mode='range': annotation '" + path + "' is nested " +
                           std::to_string(depth) + " deep, deeper than the " +
                           std::to_string(session_depth_) +
                           " levels found in the unmeasured call of each config, which the range "
                           "profiler was set up for; every run of a config must nest its "
                           "annotations as that call did");
  if (user_ranges() && depth == 1 && options_.cache_control == CacheControl::all)
    flush_.flush_and_wait();
  const std::size_t n = opened_in_pass_++;
  range_of_[id] = n;
  if (pass_ == 0) {
    first_pass_regions_.push_back(id);
    first_pass_paths_.push_back(path);
    parent_range_.push_back(open_ranges_.empty() ? kNoParentRange : open_ranges_.back());
  }
  if (!user_ranges()) return;  // application replay: the kernels are the ranges
  open_ranges_.push_back(n);
  profiler_->push_range(std::to_string(n));
}

void CounterBackend::on_region_close(RegionId id) {
  if (!in_user_pass() || !user_ranges() || !range_of_.contains(id)) return;
  if (!open_ranges_.empty()) open_ranges_.pop_back();
  profiler_->pop_range();
}

// Every pass must launch the same kernels in the same regions as the first: the passes of one
// range (of one kernel, in application replay) are parts of one measurement.
void CounterBackend::check_pass_launches(const std::vector<LaunchAttribution::Launch>& launches) {
  std::vector<std::vector<std::string>> kernels(opened_in_pass_);
  for (const LaunchAttribution::Launch& l : launches) {
    const auto it = range_of_.find(l.region);
    if (it != range_of_.end() && !l.flush)
      kernels[it->second].push_back(l.graph ? "(graph)" : l.kernel);
  }
  if (pass_ == 0) {
    first_pass_kernels_ = std::move(kernels);
    if (!user_ranges()) first_pass_order_ = launch_order(launches);
    return;
  }
  const std::string mode = "replay_mode='" + to_string(options_.replay_mode) + "': in pass " +
                           std::to_string(pass_ + 1) + " ";
  const std::optional<std::size_t> changed = first_changed_range(first_pass_kernels_, kernels);
  if (changed && *changed < first_pass_kernels_.size()) {  // a new range: the engine names it
    const std::size_t n = *changed;
    throw MeasurementError(
        mode + "annotation '" + first_pass_paths_[n] + "' launched " +
        kernel_list(n < kernels.size() ? kernels[n] : std::vector<std::string>{}) +
        ", in the first pass " + kernel_list(first_pass_kernels_[n]) +
        "; the benchmark must launch the same kernels in every pass");
  }
  // Auto ranges pair with launches by their order: kernels outside annotations count too.
  if (user_ranges() || launch_order(launches) == first_pass_order_) return;
  const auto count = [](const std::vector<LaunchAttribution::Launch>& log) {
    return std::to_string(std::count_if(
        log.begin(), log.end(), [](const LaunchAttribution::Launch& l) { return !l.flush; }));
  };
  const std::string now = count(launches), first = count(first_pass_launches_);
  throw MeasurementError(mode + "the benchmark launched " + now +
                         (now == first ? " kernel(s) in another order than in the first pass"
                                       : " kernel(s), in the first pass " + first) +
                         " (kernels outside annotations included: each is a range of the pass); "
                         "the benchmark must launch the same kernels in every pass, in the same "
                         "order");
}

// Application replay: what auto range i of a pass must be in every pass (the region's index
// in the pass, and the kernel).
std::vector<std::string> CounterBackend::launch_order(
    const std::vector<LaunchAttribution::Launch>& launches) const {
  std::vector<std::string> order;
  for (const LaunchAttribution::Launch& l : launches) {
    const auto it = range_of_.find(l.region);
    const std::string region = it == range_of_.end() ? "-" : std::to_string(it->second);
    order.push_back(l.flush ? "(flush)" : region + ":" + (l.graph ? "(graph)" : l.kernel));
  }
  return order;
}

std::string CounterBackend::kernel_list(const std::vector<std::string>& mangled) {
  if (mangled.empty()) return "no kernel";
  std::string text = std::to_string(mangled.size()) + " kernel(s) (";
  for (std::size_t i = 0; i < mangled.size() && i < 3; ++i)
    text +=
        (i ? ", " : "") + (mangled[i].empty() ? std::string("?") : names_.demangled(mangled[i]));
  return text + (mangled.size() > 3 ? ", ...)" : ")");
}

std::vector<Measurement> CounterBackend::range_measurements(
    const std::vector<RangeValues>& ranges) {
  // A range counts only when it, or a range nested in it, launched a kernel; the others are
  // reported by the engine as annotations that launched nothing.
  const std::vector<bool> launched = ranges_with_kernels(first_pass_kernels_, parent_range_);
  std::vector<Measurement> out;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const std::size_t n = range_index(ranges[i].name, first_pass_regions_.size());
    if (n >= first_pass_regions_.size() || n >= launched.size() || !launched[n]) continue;
    std::string kernels;
    for (const std::string& k : first_pass_kernels_[n])
      kernels += (kernels.empty() ? "" : "|") +
                 (k.empty() ? std::string("(unnamed kernel)") : names_.demangled(k));
    Measurement m = measurement(first_pass_regions_[n], "", 0, ranges[i].values);
    m.kernel = kernels;
    m.whole_region = true;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace kprof::detail
