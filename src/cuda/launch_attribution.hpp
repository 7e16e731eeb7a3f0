// The CUPTI callback on every kernel-launch API: which region does this launch belong to, and
// (cache_control = all) a cold L2 before it.
//
// Runs on the launching thread, inside the user's launch call: it takes one short mutex,
// never blocks on the GPU and never calls into Python.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "cuda/correlation_map.hpp"
#include "cuda/l2_flush.hpp"

namespace kprof::detail {

class LaunchAttribution {
 public:
  // `flush` may be null (cache_control = none); it must outlive the subscription.
  explicit LaunchAttribution(L2Flush* flush) : flush_(flush) {}

  // The CUpti_CallbackFunc; `userdata` is a LaunchAttribution*.
  static void CUPTIAPI callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* data);

  CorrelationMap& correlations() noexcept { return correlations_; }

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

  CorrelationMap correlations_;
  L2Flush* flush_;
  // Thread-local launch state of an earlier session (a thread stopped between the ENTER and
  // EXIT of a launch) must not leak into this one.
  const std::uint64_t session_ = next_session_.fetch_add(1) + 1;
  static inline std::atomic<std::uint64_t> next_session_{0};
  mutable std::atomic<int> in_flight_{0};
  std::atomic<bool> has_problem_{false};
  std::mutex problem_mutex_;
  Problem problem_;
  std::uint64_t problem_count_ = 0;
};

}  // namespace kprof::detail
