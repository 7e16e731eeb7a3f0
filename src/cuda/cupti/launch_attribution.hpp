// The CUPTI callback on every kernel-launch API: which region does this launch belong to, and
// (cache_control = all) a cold L2 before it.
//
// Runs on the launching thread, inside the user's launch call: it takes one short mutex and
// never calls into Python. It blocks on the GPU only to pause the range profiler around a flush
// (PassPause, multi-pass kernel replay).
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/cupti/correlation_map.hpp"
#include "cuda/device/l2_flush.hpp"

namespace kprof::detail {

class LaunchAttribution {
 public:
  // `flush` may be null (cache_control = none); it must outlive the subscription. With
  // `pause`, each flush runs with the range profiler paused (it must outlive it too).
  // `device` is the profiled CUDA device: a launch in a region on another one is refused
  // (MeasurementError); -1 accepts every device.
  explicit LaunchAttribution(L2Flush* flush, ProfilerPause* pause = nullptr, int device = -1)
      : flush_(flush), pause_(pause), device_(device) {}

  // The CUpti_CallbackFunc; `userdata` is a LaunchAttribution*.
  static void CUPTIAPI callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* data);

  CorrelationMap& correlations() noexcept { return correlations_; }

  // One launch seen by the callback, in the order the launches were made, the L2 flush
  // kernels included (region kNoRegion). The range profiler's auto ranges carry no kernel
  // identity, only their order: this log gives each range its region and kernel.
  struct Launch {
    RegionId region = kNoRegion;    // kNoRegion: launched outside every region
    std::string kernel;             // mangled symbol; empty for a graph launch
    bool graph = false;             // one launch, several kernels
    bool flush = false;             // kprof's L2 flush kernel
    std::uint32_t correlation = 0;  // CUPTI's correlation id: the kernel's activity record
  };
  // Starts or stops logging launches (off by default).
  void log_launches(bool on) noexcept { logging_.store(on, std::memory_order_release); }
  // Starts or stops the flush before launches in regions (on by default, where there is a
  // flush): the unmeasured calls need no cold L2, and their flushes cost a sweep of short
  // kernels a fifth of its time.
  void flush_launches(bool on) noexcept { flushing_.store(on, std::memory_order_release); }
  // The launches logged since the previous call.
  std::vector<Launch> take_launches();
  std::size_t launches_logged() const;
  // Wall time spent inside the launch APIs since this object was made (under kernel replay,
  // where CUPTI replays and profiles each kernel within its launch call).
  double launch_seconds() const noexcept { return 1e-9 * static_cast<double>(launch_ns_.load()); }

  // Problems seen inside callbacks since the last call, which cannot throw there: a flush that
  // failed (CudaError) or a measured launch that got no flush (MeasurementError). Throws the
  // first one and forgets all.
  void rethrow_problem();
  void reset() noexcept;
  // Waits until no callback runs any more; call after unsubscribing, before freeing what the
  // callbacks use (the flush buffer, this object).
  void wait_idle() const noexcept;

 private:
  struct Problem {
    bool cuda = false;  // CudaError, else MeasurementError
    std::string message;
  };

  void on_enter(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& cb);
  void on_exit(CUpti_CallbackDomain domain, const CUpti_CallbackData& cb);
  void flush_before(CUpti_CallbackId cbid, const CUpti_CallbackData& cb);
  void note_problem(bool cuda, std::string message) noexcept;
  // Whether a launch into `context` runs on the profiled device; otherwise notes the problem.
  bool on_profiled_device(CUcontext context, const CUpti_CallbackData& cb) noexcept;
  // Returns the launch's index in the log.
  std::size_t log_launch(RegionId region, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const CUpti_CallbackData& cb) noexcept;
  // Logs the L2 flush kernel before the launch at index `before`.
  void log_flush(std::size_t before) noexcept;

  CorrelationMap correlations_;
  L2Flush* flush_;
  ProfilerPause* pause_;
  int device_;
  // Thread-local launch state of an earlier session (a thread stopped between the ENTER and
  // EXIT of a launch) must not leak into this one.
  const std::uint64_t session_ = next_session_.fetch_add(1) + 1;
  static inline std::atomic<std::uint64_t> next_session_{0};
  mutable std::atomic<int> in_flight_{0};
  std::atomic<bool> has_problem_{false};
  std::mutex problem_mutex_;
  Problem problem_;
  std::uint64_t problem_count_ = 0;
  std::atomic<bool> logging_{false};
  std::atomic<bool> flushing_{true};
  std::atomic<std::int64_t> launch_ns_{0};
  mutable std::mutex launches_mutex_;
  std::vector<Launch> launches_;
};

}  // namespace kprof::detail
