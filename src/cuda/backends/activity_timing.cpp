#include "cuda/backends/activity_timing.hpp"

#include <algorithm>
#include <string>

#include "core/measure/run_conditions.hpp"
#include "core/measure/sweep_runs.hpp"
#include "cuda/backends/counter_collection.hpp"
#include "cuda/cupti/launch_statistics.hpp"
#include "cuda/device/device_facts.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "kprof/metrics.hpp"
#include "kprof/version.hpp"

namespace kprof::detail {

SessionInfo ActivityTiming::describe() { return describe_session("cupti-activity", 1); }

void ActivityTiming::start(const Options& options) {
  stop();
  release_kept_range_profiler();  // a counter profile's, kept for its unprofiled calls
  const std::vector<std::string> wanted = metrics::expand(options.metrics);
  duration_wanted_ = std::find(wanted.begin(), wanted.end(), kDurationMetric) != wanted.end();
  launch_wanted_ = metrics::launch_metrics_in(wanted);
  watch_.start(flush_plan(options));
  try {
    // Copies and memsets have durations too: a region of copies alone is measured by them.
    // Counter backends leave them out (the range profiler measures kernels).
    watch_.record_kernels(/*copies=*/duration_wanted_);
  } catch (...) {
    stop();
    throw;
  }
}

// Without a stopping rule, the records are collected after a config only once the configs
// since the last collection took 100 times what a collection costs (a synchronize and an
// activity flush; docs/validation.md): a sweep of short configs pays ~1% for it, and a region
// that measured nothing is still reported within a fraction of a second.
void ActivityTiming::measure(SweepRuns& runs) {
  const SweepRuns::Collect collect_values = [this] { return collect(); };
  const bool rule = runs.options().stopping.has_value();
  last_collect_ = steady_seconds();
  for (std::size_t c = 0; c < runs.configs(); ++c) {
    runs.run_config(c, collect_values);  // with a rule, collected at its checkpoints
    if (!rule && steady_seconds() - last_collect_ >= 100 * collect_cost_)
      runs.collect(collect_values);
  }
  if (!rule) runs.collect(collect_values);
}

std::vector<Measurement> ActivityTiming::collect() {
  const double t0 = steady_seconds();
  std::vector<Measurement> measured = measurements_from(watch_.take_records());
  last_collect_ = steady_seconds();
  collect_cost_ = last_collect_ - t0;
  return measured;
}

std::vector<Measurement> ActivityTiming::measurements_from(std::vector<KernelRecord> records) {
  std::sort(records.begin(), records.end(),
            [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
  std::vector<Measurement> out;
  std::vector<std::uint32_t> consumed;
  out.reserve(records.size());
  for (KernelRecord& r : records) {
    // CUPTI writes 0 when it could not collect a timestamp: no duration, never a 0 ns one.
    if (r.start_ns == 0 || r.end_ns == 0 || r.end_ns < r.start_ns) {
      throw MeasurementError("CUPTI returned a record of " + demangle(r.name) +
                             " without a valid start and end time; its duration is unknown");
    }
    Measurement m;
    m.region = r.region;
    m.kernel = r.kind == kKernelKind ? names_.demangled(r.name) : r.name;
    m.mangled = std::move(r.name);
    m.kind = std::move(r.kind);
    m.bytes = r.bytes;
    m.order = r.start_ns;
    m.start_ns = static_cast<std::int64_t>(r.start_ns);
    m.end_ns = static_cast<std::int64_t>(r.end_ns);
    m.stream = r.stream;
    if (duration_wanted_)
      m.values.push_back(MetricValue{std::string(kDurationMetric),
                                     static_cast<double>(r.end_ns - r.start_ns), "ns"});
    if (m.kind == kKernelKind) add_launch_values(m.values, r.launch, launch_wanted_);
    out.push_back(std::move(m));
    consumed.push_back(r.correlation);  // a graph's kernels share one id: erase after the loop
  }
  warn_if_graph_kernels_shared_a_flush(consumed);
  watch_.attribution().correlations().erase(consumed);
  return out;
}

// Several kernel records under one correlation id come from one graph launch, which gets one
// L2 flush before the graph, not one per kernel node: the later kernels start warm.
void ActivityTiming::warn_if_graph_kernels_shared_a_flush(std::vector<std::uint32_t> ids) {
  if (warned_graph_flush_ || !watch_.plan().before_kernels) return;
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) == ids.end()) return;
  warned_graph_flush_ = true;
  log_line(
      "[kprof] cache_control=all: a CUDA graph launch gets one L2 flush before the graph, not "
      "one per kernel; the graph's later kernels start with the L2 its earlier kernels left");
}

void ActivityTiming::stop() noexcept { watch_.stop(); }

}  // namespace kprof::detail
