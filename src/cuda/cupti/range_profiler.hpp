// The CUPTI Range Profiler (cupti_range_profiler.h) on the current context, for one metric
// configuration: hardware counters of auto ranges (one per kernel, CUPTI replays each kernel
// once per pass) or of user ranges (the program re-runs its work once per pass).
//
// Enabling costs ~150-250 ms on the H200 at the first Start, later sessions on the same
// enabled object almost nothing (../docs/metrics.md, "What counters cost"): one RangeProfiler
// lives for a whole sweep, and each collection is a session on it.
#pragma once

#include <cuda.h>
#include <cupti_range_profiler.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/measure/counter_wait.hpp"
#include "core/measure/pass_pause.hpp"
#include "cuda/cupti/profiler_host.hpp"

namespace kprof::detail {

struct RangeValues {
  std::string name;            // auto range: "0", "1"...; user ranges: "outer/inner"
  std::vector<double> values;  // in the order of RangeProfiler::metrics()
};

class RangeProfiler final : public PassControl {
 public:
  enum class Mode {
    kernel_replay,  // auto ranges, CUPTI replays each kernel with every pass
    // Auto ranges, the caller runs its work once per pass (application replay; with a 1-pass
    // configuration, kernel replay without its per-kernel save and restore of memory, ~12 ms a
    // kernel on the H200). Every kernel is a range of its own, in launch order.
    auto_range_user_replay,
    user_replay,  // user ranges (push/pop), the caller runs its work once per pass
  };

  // Builds the configuration for `metrics` on the current context's device and enables the
  // range profiler there; `reset_cache_per_pass` asks CUPTI to reset the L2 before every pass
  // of a configuration of several, which only CUPTI 13.4 and later can
  // (resets_cache_per_pass()); meant for kernel replay, where kprof cannot flush between them.
  // Throws CounterPermissionError when counters are restricted, UnsupportedError when the device
  // cannot be profiled, CudaError otherwise. While another process profiles the GPU's counters,
  // takes them through `wait` (wait_for_counters; null: CountersBusyError at once), here and at
  // the first start_pass(); from that pass until it is destroyed the counters are this
  // process's.
  RangeProfiler(std::vector<std::string> metrics, bool reset_cache_per_pass,
                CounterWait* wait = nullptr);
  ~RangeProfiler();  // stops a session in flight and disables the profiler
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  const std::vector<std::string>& metrics() const { return metrics_; }
  const std::string& chip() const { return chip_; }
  int passes() const { return passes_; }
  bool resets_cache_per_pass() const { return resets_cache_; }

  // A new session: counter data for `max_ranges` ranges. `nesting_levels` (user ranges) is
  // the depth of nesting profiled: ranges deeper than that are not measured.
  void begin_session(Mode mode, std::size_t max_ranges, int nesting_levels = 1);
  void start_pass() override;
  // Ends a pass; returns true when every pass the configuration needs has been submitted.
  bool end_pass() override;
  void push_range(const std::string& name);
  void pop_range();
  // Decodes the session's counter data. Throws MeasurementError when ranges were dropped
  // (more than max_ranges).
  std::vector<RangeValues> decode();
  bool in_pass() const override { return in_pass_; }
  // The session's capacity, for messages.
  std::size_t max_ranges() const { return max_ranges_; }

  // Wall time spent in CUPTI, by step, since construction: what a profile costs and where.
  struct Costs {
    double enable_s = 0;    // configuration, availability image, Enable
    double session_s = 0;   // counter data and SetConfig, per session
    double start_s = 0;     // Start, per pass
    double stop_s = 0;      // synchronize and Stop, per pass
    double ranges_s = 0;    // PushRange and PopRange
    double decode_s = 0;    // DecodeData and range names
    double evaluate_s = 0;  // EvaluateToGpuValues
    double wait_s = 0;      // waiting for another process's counters, within enable_s and start_s
    int sessions = 0, passes = 0;
    std::size_t ranges = 0;  // decoded
  };
  const Costs& costs() const { return costs_; }

 private:
  void disable() noexcept;

  std::vector<std::string> metrics_;
  std::string chip_;
  CUcontext context_ = nullptr;
  std::vector<std::uint8_t> availability_;
  std::unique_ptr<HostObject> host_;
  std::vector<std::uint8_t> config_;
  int passes_ = 0;
  bool resets_cache_ = false;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  std::vector<std::uint8_t> counter_data_;  // SetConfig keeps a pointer: never resized in a session
  std::size_t max_ranges_ = 0;
  bool in_pass_ = false;
  bool started_ = false;  // a pass has started: the counters are held until disable()
  Costs costs_;
  // The wait for the counters: the caller's, or (none given) one of its own that raises at once.
  std::unique_ptr<CounterWait> own_wait_;
  CounterWait* wait_ = nullptr;
};

// The loaded CUPTI's API version (130001 for 13.0 Update 1, 130500 for 13.5; the library
// found at run time, not the headers built against); 0 when CUPTI cannot say.
std::uint32_t cupti_runtime_version();

// cuptiProfilerInitialize, once per process (thread-safe); never de-initialized, because
// another client in the process (Kineto's range profiler) may use the profiler interface too.
// Throws like check_range_profiler.
void initialize_profiler();

// The current CUDA device, as CountersBusyError names it.
CounterGpu current_counter_gpu();

// Turns a CUPTI result of a range-profiler target call into kprof's typed errors
// (CUPTI_ERROR_HARDWARE_BUSY: CountersBusyError).
void check_range_profiler(CUptiResult result, const char* call);

}  // namespace kprof::detail
