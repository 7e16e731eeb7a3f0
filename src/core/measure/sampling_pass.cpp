#include "core/measure/sampling_pass.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "core/measure/extra_pass.hpp"
#include "core/measure/region_pass.hpp"
#include "core/measure/region_tracker.hpp"
#include "core/metrics/pass_records.hpp"
#include "core/say.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"

namespace kprof::detail {
namespace {

// Where each sampled metric asked for goes in a function's values.
class MetricColumns {
 public:
  explicit MetricColumns(const std::vector<std::string>& metrics) : size_(metrics.size()) {
    for (std::size_t i = 0; i < metrics.size(); ++i) index_[metrics[i]] = i;
  }
  // A window's samples per function: each reason's to its metric, and every sample with a plain
  // reason (each sampled warp has one) to the sample count.
  FunctionValues values(const SampleWindow& window) const {
    FunctionValues out;
    const auto count = index_.find(metrics::kSampleCountMetric);
    for (const StallSamples& s : window.stalls) {
      std::vector<double>& v = out[s.function];
      if (v.empty()) v.assign(size_, 0.0);
      const auto reason = index_.find(metrics::stall_metric(s.reason));
      if (reason != index_.end()) v[reason->second] += static_cast<double>(s.samples);
      if (count != index_.end() && !metrics::is_not_issued(s.reason))
        v[count->second] += static_cast<double>(s.samples);
    }
    return out;
  }

 private:
  std::size_t size_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

// Stops sampling however the pass ends.
class SamplerScope {
 public:
  explicit SamplerScope(WarpSampler& sampler) : sampler_(sampler) {}
  ~SamplerScope() { sampler_.stop(); }
  SamplerScope(const SamplerScope&) = delete;
  SamplerScope& operator=(const SamplerScope&) = delete;

 private:
  WarpSampler& sampler_;
};

RegionSpan region_span(const std::vector<Record>& measured) {
  std::map<std::tuple<std::size_t, int, std::string>, double> regions;
  for (const Record& r : measured)
    if (r.metric == kDurationMetric && r.kind == kKernelKind && std::isfinite(r.value))
      regions[{r.config, r.run, r.annotation}] += r.value;
  RegionSpan span;
  for (const auto& [region, ns] : regions) {
    if (!(ns > 0)) continue;
    if (span.shortest_ns == 0 || ns < span.shortest_ns) span.shortest_ns = ns;
    span.longest_ns = std::max(span.longest_ns, ns);
  }
  return span;
}

}  // namespace

int sampling_period_log2(double shortest_ns, double longest_ns, int sms, double clock_khz) {
  constexpr int kShortest = 5, kLongest = 31;
  // SM cycles of all SMs in a region: each SM samples once a period.
  const auto cycles = [&](double ns) { return ns * 1e-9 * clock_khz * 1e3 * std::max(sms, 1); };
  if (!(cycles(shortest_ns) > 0)) return 10;  // nothing to go by: 2^10, Proton's period
  int n = static_cast<int>(std::floor(std::log2(cycles(shortest_ns) / kSamplesWanted)));
  if (cycles(longest_ns) > 0)
    n = std::max(n, static_cast<int>(std::ceil(std::log2(cycles(longest_ns) / kSamplesAtMost))));
  return std::clamp(n, kShortest, kLongest);
}

std::vector<std::string> sampled_metrics_in(const std::vector<std::string>& metrics) {
  std::vector<std::string> out;
  for (const std::string& m : metrics)
    if (metrics::is_sampled_metric(m)) out.push_back(m);
  return out;
}

std::vector<Record> sampling_pass_records(WarpSampler& sampler, const Sweep& sweep,
                                          const RunBody& body, const std::vector<Record>& measured,
                                          bool whole_regions,
                                          const std::vector<std::string>& metrics,
                                          const std::function<void()>& poll,
                                          const std::function<void(const std::string&)>& warn) {
  const std::vector<std::string> wanted = sampled_metrics_in(metrics);
  if (wanted.empty()) return {};
  const MetricColumns columns(wanted);
  std::uint64_t total = 0, dropped = 0;
  bool full = false;
  const auto count = [&](const SampleWindow& w) {
    total += w.total_samples;
    dropped += w.dropped_samples;
    full = full || w.buffer_full;
  };
  RegionProbe probe;
  probe.take = [&] {
    const SampleWindow window = sampler.take();
    count(window);
    return columns.values(window);
  };
  probe.discard = [&] { sampler.discard(); };
  std::vector<RegionValues> taken;
  {
    const PassProfile profile;
    const SamplerScope scope(sampler);
    try {
      sampler.start();
      taken = take_per_region(probe, sweep, body, poll, "its call sampling warps (set:source)");
    } catch (const Error& e) {
      // A call that failed, or a GPU that cannot sample, costs the samples, not the profile; a
      // CUDA error goes on (the context may be lost).
      if (!dynamic_cast<const UserFunctionError*>(&e) &&
          !dynamic_cast<const UnsupportedError*>(&e) &&
          !dynamic_cast<const CounterPermissionError*>(&e))
        throw;
      taken.clear();
      if (warn) warn(std::string(e.what()) + "; set:source's samples are NaN");
    }
  }
  if (full && warn)
    warn(
        "set:source: the GPU's sample buffer filled up and samples were lost: the regions' "
        "samples are fewer than were taken, their shares still hold");
  if (dropped > 0 && warn)
    warn("set:source: the GPU dropped " + std::to_string(dropped) + " of " + std::to_string(total) +
         " warp samples (its buffer was full): the regions' samples "
         "are fewer than were taken, their shares still hold");
  // A kernel of a sampled region may get no sample (a short one beside a long one): 0, not NaN.
  return pass_records(taken, PassMetrics{wanted, "sample", true}, measured, whole_regions);
}

namespace {

// set:source as a measurement kind of its own pass: sampled where its metrics are asked for and
// the GPU layer gave a warp sampler.
class SamplingPass final : public ExtraPass {
 public:
  bool wanted(const Options& options, const SweepServices& services) const override {
    return services.warp_sampler && !sampled_metrics_in(options.metrics).empty();
  }
  std::vector<Record> measure(const ExtraPassInputs& in) override {
    const std::unique_ptr<WarpSampler> sampler = in.services.warp_sampler(region_span(in.measured));
    say(in.options, Verbosity::info,
        "set:source: sampling warps in one more call of each of the " +
            std::to_string(in.sweep.size()) + " config(s)");
    return sampling_pass_records(*sampler, in.sweep, in.body, in.measured,
                                 traits_of(in.options.replay_mode).whole_region, in.options.metrics,
                                 in.poll, in.warn);
  }
};

[[maybe_unused]] const bool kRegistered =
    register_extra_pass("source", [] { return std::make_unique<SamplingPass>(); });

}  // namespace

}  // namespace kprof::detail
