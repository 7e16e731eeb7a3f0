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
#include "kprof/demangle.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"

namespace kprof::detail {
namespace {

// A sampled instruction as a region's values name it, where the region pass names functions:
// its function, cubin and offset, apart by a character no name holds.
std::string pc_key(const std::string& function, std::uint32_t crc, std::uint64_t pc_offset) {
  return function + '\n' + std::to_string(crc) + '\n' + std::to_string(pc_offset);
}

struct PcKey {
  std::string function;
  std::uint32_t crc = 0;
  std::uint64_t pc_offset = 0;
};

PcKey parse_pc_key(const std::string& key) {
  const std::size_t a = key.find('\n');
  const std::size_t b = key.find('\n', a + 1);
  return {key.substr(0, a), static_cast<std::uint32_t>(std::stoul(key.substr(a + 1, b - a - 1))),
          std::stoull(key.substr(b + 1))};
}

// The regions' values per function, pass_records' input, from their values per instruction.
std::vector<RegionValues> per_function(const std::vector<RegionValues>& per_pc) {
  std::vector<RegionValues> out;
  out.reserve(per_pc.size());
  for (const RegionValues& region : per_pc) {
    RegionValues r{region.config, region.annotation, {}};
    for (const auto& [key, values] : region.functions)
      add_values(r.functions[parse_pc_key(key).function], values);
    out.push_back(std::move(r));
  }
  return out;
}

// Each region's instructions as source lines: a line per reason asked for with samples, placed
// by the sampler once per instruction. A region is opened once per call (the tracker refuses
// an annotation opened twice in a run), so each is one of `per_pc`.
std::vector<SourceSample> source_lines(const std::vector<RegionValues>& per_pc,
                                       const std::vector<std::string>& wanted,
                                       WarpSampler& sampler) {
  std::map<std::string, InstructionPlace> places;
  std::vector<SourceSample> out;
  for (const RegionValues& region : per_pc)
    for (const auto& [key, values] : region.functions) {
      const PcKey pc = parse_pc_key(key);
      auto place = places.find(key);
      if (place == places.end())
        place = places.emplace(key, sampler.place(pc.crc, pc.function, pc.pc_offset)).first;
      const std::string kernel = demangle(pc.function);
      for (std::size_t m = 0; m < values.size() && m < wanted.size(); ++m) {
        if (wanted[m] == metrics::kSampleCountMetric || !(values[m] > 0)) continue;
        out.push_back({region.config, region.annotation, kernel, pc.crc,
                       static_cast<std::int64_t>(pc.pc_offset), place->second.sass,
                       place->second.file, place->second.line,
                       std::string(metrics::stall_reason_of(wanted[m])), values[m]});
      }
    }
  return out;
}

// Where each sampled metric asked for goes in a function's values.
class MetricColumns {
 public:
  explicit MetricColumns(const std::vector<std::string>& metrics) : size_(metrics.size()) {
    for (std::size_t i = 0; i < metrics.size(); ++i) index_[metrics[i]] = i;
  }
  // A window's samples per instruction (pc_key): each reason's to its metric, and every sample
  // with a plain reason (each sampled warp has one) to the sample count.
  FunctionValues values(const SampleWindow& window) const {
    FunctionValues out;
    const auto count = index_.find(metrics::kSampleCountMetric);
    for (const StallSamples& s : window.stalls) {
      std::vector<double>& v = out[pc_key(s.function, s.cubin_crc, s.pc_offset)];
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
                                          const std::function<void(const std::string&)>& warn,
                                          std::vector<SourceSample>* source, SampleTally* tally) {
  const std::vector<std::string> wanted = sampled_metrics_in(metrics);
  if (wanted.empty()) return {};
  const MetricColumns columns(wanted);
  SampleTally sums;
  bool full = false;
  const auto count = [&](const SampleWindow& w) {
    sums.total += w.total_samples;
    sums.dropped += w.dropped_samples;
    ++sums.windows;
    full = full || w.buffer_full;
    for (const StallSamples& s : w.stalls)
      if (!metrics::is_not_issued(s.reason)) sums.functions[s.function] += s.samples;
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
  if (!taken.empty() && sums.total > 0 && sums.functions.empty()) {
    // The GPU sampled, but CUPTI placed no sample in a kernel it knows (it counts them as
    // "non-user" kernels'): zeros would read as regions that never waited.
    taken.clear();
    if (warn)
      warn("set:source: the GPU took " + std::to_string(sums.total) +
           " warp samples and CUPTI attributed none to a kernel of this process (as it does when "
           "PC sampling is enabled after kernels were traced in the process: run the set:source "
           "profile first, or in a process of its own); set:source's samples are NaN");
  }
  if (full && warn)
    warn(
        "set:source: the GPU's sample buffer filled up and samples were lost: the regions' "
        "samples are fewer than were taken, their shares still hold");
  if (sums.dropped > 0 && warn)
    warn("set:source: the GPU dropped " + std::to_string(sums.dropped) + " of " +
         std::to_string(sums.total) +
         " warp samples (its buffer was full): the regions' samples "
         "are fewer than were taken, their shares still hold");
  if (tally != nullptr) *tally = std::move(sums);
  if (source != nullptr) {
    try {
      *source = source_lines(taken, wanted, sampler);
    } catch (const Error& e) {  // the counts stand without their places
      source->clear();
      if (warn)
        warn(std::string("set:source could not place the sampled instructions: ") + e.what());
    }
  }
  // A kernel of a sampled region may get no sample (a short one beside a long one): 0, not NaN.
  return pass_records(per_function(taken), PassMetrics{wanted, "sample", true}, measured,
                      whole_regions);
}

namespace {

// set:source as a measurement kind of its own pass: sampled where its metrics are asked for and
// the GPU layer gave a warp sampler.
class SamplingPass final : public ExtraPass {
 public:
  bool wanted(const Options& options, const SweepServices& services) const override {
    return services.warp_sampler && !sampled_metrics_in(options.metrics).empty();
  }
  PassOutput measure(const ExtraPassInputs& in) override {
    const std::unique_ptr<WarpSampler> sampler = in.services.warp_sampler(region_span(in.measured));
    say(in.options, Verbosity::info,
        "set:source: sampling warps in one more call of each of the " +
            std::to_string(in.sweep.size()) + " config(s)");
    SampleTally tally;
    PassOutput out;
    out.records = sampling_pass_records(*sampler, in.sweep, in.body, in.measured,
                                        traits_of(in.options.replay_mode).whole_region,
                                        in.options.metrics, in.poll, in.warn, &out.source, &tally);
    say(in.options, Verbosity::info,
        "set:source: " + std::to_string(tally.total) + " warp samples (" +
            std::to_string(tally.dropped) + " dropped) in " +
            std::to_string(tally.functions.size()) + " function(s), " +
            std::to_string(tally.windows) + " window(s)");
    for (const auto& [function, samples] : tally.functions)
      say(in.options, Verbosity::debug,
          "set:source: " + std::to_string(samples) + " samples in " + demangle(function));
    return out;
  }
};

[[maybe_unused]] const bool kRegistered =
    register_extra_pass("source", [] { return std::make_unique<SamplingPass>(); });

}  // namespace

}  // namespace kprof::detail
