#include "cuda/backends/activity_timing.hpp"

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <algorithm>
#include <string>

#include "core/measure/run_conditions.hpp"
#include "core/measure/sweep_runs.hpp"
#include "cuda/backends/counter_session.hpp"
#include "cuda/cupti/copy_apis.hpp"
#include "cuda/cupti/cupti_check.hpp"
#include "cuda/cupti/launch_apis.hpp"
#include "cuda/cupti/launch_statistics.hpp"
#include "cuda/device/cuda_check.hpp"
#include "cuda/device/device_facts.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "kprof/metrics.hpp"
#include "kprof/version.hpp"

namespace kprof::detail {

ActivityTiming::ActivityTiming(const Options& options) : options_(options) {}

SessionInfo ActivityTiming::describe() { return describe_session(options_, "cupti-activity", 1); }

void ActivityTiming::start(const Options& options) {
  stop();
  release_kept_range_profiler();  // a counter profile's, kept for its unprofiled calls
  options_ = options;
  const std::vector<std::string> wanted = metrics::expand(options.metrics);
  duration_wanted_ = std::find(wanted.begin(), wanted.end(), kDurationMetric) != wanted.end();
  launch_wanted_ = metrics::launch_metrics_in(wanted);
  try {
    // Creates (or binds) the primary context: CUPTI and the flush buffer need one.
    check_cuda(cudaFree(nullptr), "cudaFree(0)");
    attribution_ = std::make_unique<LaunchAttribution>(
        options.cache_control == CacheControl::all ? &flush_ : nullptr, nullptr, current_device());
    sink_ = std::make_unique<ActivitySink>(attribution_->correlations());
    // Subscribe first: when another tool holds CUPTI nothing else is worth doing.
    subscriber_.subscribe(&LaunchAttribution::callback, attribution_.get());
    if (options.cache_control == CacheControl::all) flush_.allocate();
    enable_launch_callbacks();
    sink_->attach();
    check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)");
    activity_enabled_ = true;
    if (duration_wanted_) enable_copies();
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

void ActivityTiming::enable_launch_callbacks() {
  subscriber_.enable(CUPTI_CB_DOMAIN_RUNTIME_API, runtime_launch_cbids());
  subscriber_.enable(CUPTI_CB_DOMAIN_DRIVER_API, driver_launch_cbids());
}

// Copies and memsets have durations too: a region of copies alone is measured by them. Counter
// backends leave them out (the range profiler measures kernels).
void ActivityTiming::enable_copies() {
  subscriber_.enable(CUPTI_CB_DOMAIN_DRIVER_API, driver_copy_cbids());
  check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY),
              "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY)");
  check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET),
              "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET)");
  copies_enabled_ = true;
}

std::vector<Measurement> ActivityTiming::collect() {
  const double t0 = steady_seconds();
  std::vector<Measurement> measured = collect_completed();
  last_collect_ = steady_seconds();
  collect_cost_ = last_collect_ - t0;
  return measured;
}

std::vector<Measurement> ActivityTiming::collect_completed() {
  if (sink_ == nullptr || attribution_ == nullptr) {
    throw CudaError("kprof internal error: collect() called before start()");
  }
  // FlushAll delivers what is complete but does not wait for the GPU: synchronize first, or
  // the last kernels come back without end timestamps.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  // It costs about ten times the tracing of one kernel: once per collect(), never per kernel.
  check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
              "cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)");
  attribution_->rethrow_problem();
  if (std::uint64_t dropped = sink_->take_dropped(); dropped > 0) {
    throw MeasurementError("CUPTI dropped " + std::to_string(dropped) +
                           " kernel activity record(s) (no buffer space): the kernels of this "
                           "run cannot all be measured");
  }
  return measurements_from(sink_->take());
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
  attribution_->correlations().erase(consumed);
  return out;
}

// Several kernel records under one correlation id come from one graph launch, which gets one
// L2 flush before the graph, not one per kernel node: the later kernels start warm.
void ActivityTiming::warn_if_graph_kernels_shared_a_flush(std::vector<std::uint32_t> ids) {
  if (warned_graph_flush_ || options_.cache_control != CacheControl::all) return;
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) == ids.end()) return;
  warned_graph_flush_ = true;
  log_line(
      "[kprof] cache_control=all: a CUDA graph launch gets one L2 flush before the graph, not "
      "one per kernel; the graph's later kernels start with the L2 its earlier kernels left");
}

void ActivityTiming::stop() noexcept {
  if (activity_enabled_) {
    (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (copies_enabled_) {
      (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
      (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
      copies_enabled_ = false;
    }
    // Hand back every buffer CUPTI still holds, so none lands in a later session.
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    activity_enabled_ = false;
  }
  subscriber_.unsubscribe();
  if (attribution_ != nullptr) attribution_->wait_idle();
  if (sink_ != nullptr) {
    sink_->detach();
    try {
      (void)sink_->take();
      (void)sink_->take_dropped();
    } catch (...) {
    }
  }
  if (attribution_ != nullptr) attribution_->reset();
  flush_.release();
}

}  // namespace kprof::detail
