// What every measurement kind watches the kernels' launches with: the L2 flush its FlushPlan
// asks for, kprof's CUPTI subscription to the launch APIs, the attribution of each launch to its
// region, and where asked the activity records of the kernels (and copies) launched. As each of
// NVBench's measure_* classes owns an l2flush, each measurement kind owns one LaunchWatch, built
// from one decision (flush_plan), so the kinds cannot disagree on when to flush.
#pragma once

#include <cupti_activity.h>

#include <memory>
#include <vector>

#include "core/measure/flush_plan.hpp"
#include "core/measure/pass_pause.hpp"
#include "cuda/cupti/activity_sink.hpp"
#include "cuda/cupti/cupti_subscriber.hpp"
#include "cuda/cupti/launch_attribution.hpp"
#include "cuda/device/l2_flush.hpp"

namespace kprof::detail {

class LaunchWatch {
 public:
  LaunchWatch() = default;
  ~LaunchWatch() { stop(); }
  LaunchWatch(const LaunchWatch&) = delete;
  LaunchWatch& operator=(const LaunchWatch&) = delete;

  // Binds the primary context (CUPTI and the flush buffer need one), subscribes to the launch
  // APIs, and takes the flush buffer where the plan flushes. With `pause`, each flush before a
  // kernel runs with the range profiler paused (it must outlive the watch's start). Throws
  // CuptiBusyError when another tool holds CUPTI, CudaError; a failed start is stopped.
  void start(const FlushPlan& plan, ProfilerPause* pause = nullptr);
  // The kernels' activity records are kept from now on, and with `copies` those of copies and
  // memsets (whose launch APIs are then watched too). Throws CudaError.
  void record_kernels(bool copies);
  // What a record CUPTI dropped (no buffer space) costs: the measurement, where every record is
  // one (durations: MeasurementError), or only its kernel's launch statistics (counters).
  enum class Dropped { fail, ignore };
  // Waits for the GPU and returns the records completed since the previous call. Throws what
  // the launch callback ran into, and MeasurementError for dropped records under Dropped::fail.
  std::vector<KernelRecord> take_records(Dropped dropped = Dropped::fail);
  // Disables the records (handing back CUPTI's buffers), unsubscribes, waits until no callback
  // runs, and lets go of the flush buffer. The attribution is kept, emptied, until the next
  // start(): a callback that raced with stop() never touches freed memory. Never throws.
  void stop() noexcept;

  const FlushPlan& plan() const { return plan_; }
  bool started() const { return attribution_ != nullptr; }
  bool records_kernels() const { return kernels_recorded_; }
  LaunchAttribution& attribution() { return *attribution_; }
  const LaunchAttribution& attribution() const { return *attribution_; }
  L2Flush& flush() { return flush_; }

 private:
  FlushPlan plan_;
  L2Flush flush_;
  CuptiSubscriber subscriber_;
  std::unique_ptr<LaunchAttribution> attribution_;
  std::unique_ptr<ActivitySink> sink_;
  bool kernels_recorded_ = false;
  // The kind of kernel records record_kernels() enabled.
  CUpti_ActivityKind kernel_kind_ = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  bool copies_recorded_ = false;
};

}  // namespace kprof::detail
