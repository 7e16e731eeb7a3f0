// A Backend for testing the engine without a GPU: the benchmark body "launches" kernels with
// known values, attributed to regions by the real RegionTracker, as the CUPTI backends do. Its
// measure() is the loop of the activity backend (collect after every config) or, with
// `per_config = false` and `unmeasured_call`, of kernel replay (an unmeasured call per config
// first, one collection when the sweep ends).
#pragma once

#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/backend.hpp"
#include "core/measure/region_tracker.hpp"
#include "core/measure/sweep_runs.hpp"
#include "core/measure/unmeasured_calls.hpp"

namespace kprof::testing {

// Options of `runs` runs that print nothing: what the engine tests profile with.
inline Options quiet(int runs) {
  Options o;
  o.runs = runs;
  o.verbosity = Verbosity::silent;
  return o;
}

class ScriptedBackend : public detail::Backend {
 public:
  SessionInfo describe() override {
    SessionInfo s;
    s.gpu = "Scripted GPU";
    s.backend = "scripted";
    s.metrics = {"gpu__time_duration.sum"};
    return s;
  }
  void start(const Options&) override {
    ++starts;
    running = true;
  }
  void measure(detail::SweepRuns& runs) override {
    std::optional<detail::UnmeasuredCalls> calls;
    if (unmeasured_call)
      calls.emplace(
          runs, [this](std::size_t, std::size_t regions) { return unmeasured_call_done(regions); });
    const detail::SweepRuns::Collect take = [this] { return collect(); };
    const bool rule = runs.options().stopping.has_value();
    for (std::size_t c = 0; c < runs.configs(); ++c) {
      if (calls) calls->raise_if_failed(c);
      runs.run_config(c, take);
      if (per_config && !rule) runs.collect(take);
    }
    if (!per_config && !rule) runs.collect(take);
  }
  std::vector<detail::Measurement> salvage() override { return collect(); }
  virtual std::vector<detail::Measurement> collect() {
    ++collects;
    std::lock_guard lock(mutex_);
    return std::move(pending_);
  }
  void stop() noexcept override {
    running = false;
    ++stops;
  }
  void release() noexcept override { ++releases; }

  // A kernel launched for `ns`, in the region open for this thread (none: dropped).
  // `sm_clock_hz`: the clock a counter backend measured the kernel at (NaN: none).
  void launch(const std::string& kernel, double ns,
              double sm_clock_hz = std::numeric_limits<double>::quiet_NaN()) {
    detail::Measurement m{
        detail::kNoRegion, kernel, kernel, 0, {{"gpu__time_duration.sum", ns, "ns"}}};
    m.sm_clock_hz = sm_clock_hz;
    attributed(std::move(m));
  }

  // What range replay gives: the open region measured whole (nested regions included), its
  // record naming the kernels it launched itself ("a|b", "" when none).
  void measure_region(const std::string& kernels, double ns) {
    detail::Measurement m{
        detail::kNoRegion, kernels, "", 0, {{"gpu__time_duration.sum", ns, "ns"}}};
    m.whole_region = true;
    attributed(std::move(m));
  }

  // What CUPTI's memcpy and memset records give: a copy's kind ("memcpy DtoD", "memset"),
  // bytes and duration, attributed as launches are.
  void copy(const std::string& kind, std::int64_t bytes, double ns) {
    detail::Measurement m{
        detail::kNoRegion, "[" + kind + "]", "", 0, {{"gpu__time_duration.sum", ns, "ns"}}};
    m.kind = kind;
    m.bytes = bytes;
    attributed(std::move(m));
  }

  int starts = 0, stops = 0, releases = 0, collects = 0;
  bool running = false;
  // As the counter backends: the benchmark is called once per config, unmeasured, before the
  // runs; what it launched is forgotten.
  bool unmeasured_call = false;
  bool per_config = true;                       // collect after every config (else once at the end)
  std::vector<std::size_t> unmeasured_regions;  // the regions of each unmeasured call

 private:
  // What a launch callback does: ask the tracker which region is open for this thread; kept,
  // in launch order, when one is.
  void attributed(detail::Measurement m) {
    m.region = detail::RegionTracker::instance().attribute_launch();
    if (m.region == detail::kNoRegion) return;
    std::lock_guard lock(mutex_);
    m.order = ++clock_;
    pending_.push_back(std::move(m));
  }

  std::size_t unmeasured_call_done(std::size_t regions) {
    unmeasured_regions.push_back(regions);
    std::lock_guard lock(mutex_);
    pending_.clear();
    return regions;
  }

  std::mutex mutex_;
  std::vector<detail::Measurement> pending_;
  std::uint64_t clock_ = 0;
};

}  // namespace kprof::testing
