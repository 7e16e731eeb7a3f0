// A Backend for testing the engine without a GPU: the benchmark body "launches" kernels with
// known values, attributed to regions by the real RegionTracker, as the CUPTI backend does.
#pragma once

#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/region_tracker.hpp"

namespace kprof::testing {

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
  std::vector<detail::Measurement> collect() override {
    ++collects;
    std::lock_guard lock(mutex_);
    return std::move(pending_);
  }
  void stop() noexcept override {
    running = false;
    ++stops;
  }

  // What a launch callback does: ask the tracker which region is open for this thread.
  // `sm_clock_hz`: the clock a counter backend measured the kernel at (NaN: none).
  void launch(const std::string& kernel, double ns,
              double sm_clock_hz = std::numeric_limits<double>::quiet_NaN()) {
    auto region = detail::RegionTracker::instance().attribute_launch();
    if (region == detail::kNoRegion) return;
    detail::Measurement m{region, kernel, kernel, ++clock_, {{"gpu__time_duration.sum", ns, "ns"}}};
    m.sm_clock_hz = sm_clock_hz;
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(m));
  }

  // As the counter backend: the engine calls the benchmark once, unmeasured, before the runs;
  // what it launched is forgotten.
  bool wants_unmeasured_calls() const override { return unmeasured_call; }
  std::size_t unmeasured_call_done(std::size_t, std::size_t regions) override {
    unmeasured_regions.push_back(regions);
    std::lock_guard lock(mutex_);
    pending_.clear();
    return regions;
  }

  int starts = 0, stops = 0, collects = 0;
  bool running = false;
  bool unmeasured_call = false;
  std::vector<std::size_t> unmeasured_regions;  // unmeasured_call_done's arguments

 private:
  std::mutex mutex_;
  std::vector<detail::Measurement> pending_;
  std::uint64_t clock_ = 0;
};

}  // namespace kprof::testing
