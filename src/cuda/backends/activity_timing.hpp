// Kernel durations from the CUPTI Activity API (CONCURRENT_KERNEL records), one execution per
// launch, attributed to regions through launch callbacks and correlation ids: the default
// backend (kernel replay, the duration and launch statistics alone: no counter). Each config's runs
// run in order; the records are collected at most once per config, never per run: a collection
// waits for the GPU and flushes CUPTI's buffers (its cost on the H200: docs/validation.md).
#pragma once

#include <vector>

#include "core/measure/backend.hpp"
#include "cuda/backends/launch_watch.hpp"
#include "cuda/cupti/kernel_names.hpp"
#include "kprof/options.hpp"

namespace kprof::detail {

class ActivityTiming final : public Backend {
 public:
  ActivityTiming() = default;
  ~ActivityTiming() override { stop(); }

  SessionInfo describe() override;
  void start(const Options& options) override;
  void measure(SweepRuns& runs) override;
  std::vector<Measurement> salvage() override { return collect(); }
  void stop() noexcept override;

 private:
  // Waits for the GPU and returns every kernel completed since the previous call.
  std::vector<Measurement> collect();
  std::vector<Measurement> measurements_from(std::vector<KernelRecord> records);
  void warn_if_graph_kernels_shared_a_flush(std::vector<std::uint32_t> correlation_ids);

  bool duration_wanted_ = true;             // the duration is among the metrics
  std::vector<std::string> launch_wanted_;  // launch statistics among them (set by start())
  LaunchWatch watch_;
  KernelNames names_;
  bool warned_graph_flush_ = false;  // said once per backend
  double last_collect_ = 0;          // steady seconds when the last collection ended
  double collect_cost_ = 1e-3;       // seconds the last collection took
};

}  // namespace kprof::detail
