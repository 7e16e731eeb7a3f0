#include "cuda/backends/counter_collection.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <memory>
#include <mutex>
#include <utility>

#include "core/measure/range_passes.hpp"
#include "core/say.hpp"
#include "cuda/cupti/launch_statistics.hpp"
#include "cuda/device/device_facts.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "kprof/metrics.hpp"
#include "kprof/units.hpp"

namespace kprof::detail {
namespace {

// Ranges one session holds at most; a larger sweep runs in several sessions.
constexpr std::size_t kMaxCapacity = 1 << 16;

}  // namespace

void SessionCapacity::fit(std::size_t run_ranges) {
  while (ranges_ < kMaxCapacity && run_ranges * 4 > ranges_) ranges_ *= 2;
}

bool graph_launched(const std::vector<Launch>& launches) {
  return std::any_of(launches.begin(), launches.end(), [](const Launch& l) { return l.graph; });
}

std::size_t ranges_of_run(const std::vector<Launch>& call_launches, bool flush_ranges) {
  if (!flush_ranges) return call_launches.size();
  const auto flushed = std::count_if(call_launches.begin(), call_launches.end(),
                                     [](const Launch& l) { return l.region != kNoRegion; });
  return call_launches.size() + static_cast<std::size_t>(flushed);
}

UnmeasuredCalls CounterCollection::unmeasured_calls(SweepRuns& runs,
                                                    const UnmeasuredCalls::Done& done) {
  struct FlushesBack {
    LaunchAttribution& attribution;
    ~FlushesBack() { attribution.flush_launches(true); }
  } back{watch_.attribution()};
  watch_.attribution().flush_launches(false);
  return UnmeasuredCalls(runs, done);  // made in place, before `back` turns the flushes on
}

std::vector<std::string> CounterCollection::collected_metrics() const {
  std::vector<std::string> wanted = metrics::counter_metrics(metrics::expand(options_.metrics));
  // Launch statistics alone: the range profiler still measures the kernels (their ranges and
  // passes), with the duration, which is then not reported.
  if (wanted.empty()) wanted.emplace_back(kDurationMetric);
  if (std::find(wanted.begin(), wanted.end(), kClockMetric) != wanted.end()) return wanted;
  const std::optional<std::string> chip = metrics::current_chip();
  if (!chip) return wanted;
  const metrics::MetricCatalog catalog = metrics::catalog(*chip);
  std::vector<std::string> with_clock = wanted;
  with_clock.push_back(kClockMetric);
  // The clock rides along only where it costs no extra pass.
  return catalog.passes(with_clock) == catalog.passes(wanted) ? with_clock : wanted;
}

SessionInfo CounterCollection::describe() const {
  const std::vector<std::string> collected = collected_metrics();
  int passes = 0;
  if (const std::optional<std::string> chip = metrics::current_chip())
    passes = metrics::catalog(*chip).passes(collected);
  return describe_session("cupti-range-profiler", passes);
}

namespace {

// The range profiler a stopped session keeps enabled, idle, until release_kept_range_profiler().
// Neither is ever destroyed: a profiler disabled as the process exits, after CUDA's teardown,
// would fail.
std::mutex& kept_mutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}
std::unique_ptr<RangeProfiler>& kept_profiler() {
  static auto* kept = new std::unique_ptr<RangeProfiler>();
  return *kept;
}

// Keeps `profiler` (may be null); the one kept before is disabled, outside the lock.
void keep_range_profiler(std::unique_ptr<RangeProfiler> profiler) noexcept {
  std::unique_ptr<RangeProfiler> before;
  {
    std::lock_guard lock(kept_mutex());
    before = std::exchange(kept_profiler(), std::move(profiler));
  }
}

}  // namespace

void release_kept_range_profiler() noexcept { keep_range_profiler(nullptr); }

void CounterCollection::start(const Options& options) {
  stop();
  release_kept_range_profiler();
  options_ = options;
  try {
    watch_.start(detail::flush_plan(options), &flush_pause_);
    metrics_ = collected_metrics();
    counter_wait_ = std::make_unique<CounterWait>(
        options.wait_for_counters, system_counter_wait_clock(),
        [says_info = says(options, Verbosity::info)](const std::string& line) {
          if (says_info) log_line("[kprof] " + line);
        });
    profiler_ = std::make_unique<RangeProfiler>(metrics_, watch_.plan().reset_per_pass,
                                                counter_wait_.get());
    flush_pause_.reset();
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
    // A range has no launch of its own: range replay leaves out the launch statistics of a set.
    launch_wanted_ = traits_of(options.replay_mode).whole_region
                         ? std::vector<std::string>{}
                         : metrics::launch_metrics_in(wanted);
    if (!launch_wanted_.empty()) start_launch_records();
    watch_.attribution().log_launches(true);
  } catch (...) {
    stop();
    release_kept_range_profiler();
    throw;
  }
}

void CounterCollection::stop() noexcept {
  watch_.stop();  // no callback uses the profiler from now on
  launch_records_.clear();
  flush_pause_.arm(nullptr);
  if (profiler_ != nullptr) {
    profiler_seconds_ = cupti_seconds();
    if (options_.verbosity == Verbosity::debug) log_costs();
  }
  // Kept enabled while idle (release_kept_range_profiler()); a pass in flight is stopped and
  // the profiler disabled.
  if (profiler_ != nullptr && !profiler_->in_pass()) keep_range_profiler(std::move(profiler_));
  profiler_.reset();
  flush_pause_.reset();
}

// The wall time spent in CUPTI: its calls, and with auto ranges (kernel and application
// replay) the launch calls, in which it profiles each kernel (less the pauses for flushes,
// counted in Start and Stop already).
double CounterCollection::cupti_seconds() const noexcept {
  const RangeProfiler::Costs& c = profiler_->costs();
  // Waiting for another process's counters is no work of CUPTI's.
  const double calls = c.enable_s + c.session_s + c.start_s + c.stop_s + c.ranges_s + c.decode_s +
                       c.evaluate_s - c.wait_s;
  if (traits_of(options_.replay_mode).whole_region || !watch_.started()) return calls;
  return calls + watch_.attribution().launch_seconds() - flush_pause_.seconds();
}

void CounterCollection::log_costs() const noexcept {
  try {
    const RangeProfiler::Costs& c = profiler_->costs();
    char line[512];
    std::snprintf(
        line, sizeof line,
        "[kprof] range profiler: %d session(s), %d pass(es), %zu range(s); enable %.3f s, "
        "sessions %.3f s, start %.3f s, stop %.3f s, push/pop %.3f s, decode %.3f s, "
        "evaluate %.3f s; waited %.3f s for the counters",
        c.sessions, c.passes, c.ranges, c.enable_s, c.session_s, c.start_s, c.stop_s, c.ranges_s,
        c.decode_s, c.evaluate_s, c.wait_s);
    log_line(line);
  } catch (...) {
  }
}

std::vector<Launch> CounterCollection::take_launches() {
  LaunchAttribution& attribution = watch_.attribution();
  std::vector<Launch> launches = attribution.take_launches();
  if (watch_.records_kernels()) keep_launch_records();
  attribution.correlations().clear();  // read only by activity records
  attribution.rethrow_problem();
  return launches;
}

std::vector<Measurement> CounterCollection::kernel_measurements(
    const std::vector<RangeValues>& ranges, const std::vector<Launch>& launches) {
  if (ranges.size() != launches.size()) {
    const std::string mode = to_string(options_.replay_mode);
    int driver = 0;
    (void)cudaDriverGetVersion(&driver);
    const std::string older = no_auto_ranges_from_older_cupti(
        mode, ranges.size(), launches.size(), static_cast<int>(cupti_runtime_version()), driver);
    if (!older.empty()) throw UnsupportedError(older);
    throw MeasurementError(
        unpaired_auto_ranges(mode, ranges.size(), launches.size(), graph_launched(launches)));
  }
  // Auto ranges come back in launch order; their names are not relied on (whether they
  // restart at "0" in each session of one enabled profiler is not documented).
  std::vector<Measurement> out;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const Launch& launch = launches[i];
    if (launch.region == kNoRegion) continue;
    out.push_back(measurement(launch.region, launch.kernel, i, ranges[i].values));
    if (watch_.records_kernels()) add_launch_values(out.back(), launch);
  }
  // What no measured launch named (an unmeasured call's kernels, application replay's later
  // passes, kernels outside regions) would otherwise be kept until the profile stops.
  launch_records_.clear();
  return out;
}

// Activity records run beside the range profiler: they carry the launch (grid, block,
// registers, shared memory) though no timestamps while it profiles.
void CounterCollection::start_launch_records() {
  launch_records_.clear();
  watch_.record_kernels(/*copies=*/false);
}

// A record is delivered once its kernel is done: the watch waits for the GPU, then flushes.
void CounterCollection::keep_launch_records() {
  // A record CUPTI dropped costs its kernel the launch statistics, not the counters.
  for (KernelRecord& r : watch_.take_records(LaunchWatch::Dropped::ignore))
    launch_records_.emplace(r.correlation, std::move(r));
}

// The record of the kernel the launch named: under its user replay (1-pass kernel replay,
// application replay) CUPTI's range profiler runs a kernel of its own, WaitNs <<<1, 1>>>, under
// the measured launch's correlation id (seen on the H200). A launch without a name takes the
// only record of its correlation id. A graph launch's kernels share its
// correlation id: their launches cannot be told apart, so they get none.
void CounterCollection::add_launch_values(Measurement& m, const Launch& launch) {
  if (launch.graph) return;
  const auto [first, last] = launch_records_.equal_range(launch.correlation);
  const KernelRecord* record = nullptr;
  for (auto it = first; it != last && record == nullptr; ++it)
    if (it->second.name == launch.kernel) record = &it->second;
  if (record == nullptr && launch.kernel.empty() && std::distance(first, last) == 1)
    record = &first->second;
  if (record == nullptr) return;
  detail::add_launch_values(m.values, record->launch, launch_wanted_);
  launch_records_.erase(first, last);
}

Measurement CounterCollection::measurement(RegionId region, std::string mangled,
                                           std::uint64_t order, const std::vector<double>& values) {
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

std::string CounterCollection::kernel_list(const std::vector<std::string>& mangled) {
  if (mangled.empty()) return "no kernel";
  std::string text = std::to_string(mangled.size()) + " kernel(s) (";
  for (std::size_t i = 0; i < mangled.size() && i < 3; ++i)
    text +=
        (i ? ", " : "") + (mangled[i].empty() ? std::string("?") : names_.demangled(mangled[i]));
  return text + (mangled.size() > 3 ? ", ...)" : ")");
}

void CounterCollection::raise_failed_stop(const char* what, bool after_graph) const {
  if (after_graph)
    throw MeasurementError(graph_launch_with_auto_ranges(to_string(options_.replay_mode), what));
  throw;
}

}  // namespace kprof::detail
