// Kernel replay of more than one pass: the L2 flush before a kernel runs between a Stop and a
// Start of the range profiler's pass instead of as a range of its own, which CUPTI would replay
// like the kernel it precedes (~70 ms on the H200; a Start or Stop after a session's first
// costs ~0, docs/metrics.md "What counters cost").
//
// pause() and resume() run in the launch callback, on the launching thread. A mutex held from a
// successful pause() to its resume() keeps two launching threads from stopping and starting
// the same pass (the profiling thread's own Starts and Stops, between runs, take no part: kernel
// replay expects the benchmark's launches to be over by then). A failure cannot be thrown
// there: it waits for rethrow() on the profiling thread. The profiler's Stop synchronizes the
// device, which a stream capture in global mode open on another stream forbids
// (docs/metrics.md, Limits).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>

namespace kprof::detail {

// What a pause needs of a profiler: its pass, ended and started again.
class PassControl {
 public:
  virtual ~PassControl() = default;
  virtual bool in_pass() const = 0;
  virtual bool end_pass() = 0;  // true: every pass the configuration needs has been submitted
  virtual void start_pass() = 0;
};

// Keeps kprof's own launches out of a profiler's ranges (called around them; never throws).
class ProfilerPause {
 public:
  virtual ~ProfilerPause() = default;
  virtual bool pause() noexcept = 0;  // false: not paused, what follows is profiled
  virtual void resume() noexcept = 0;
};

class PassPause final : public ProfilerPause {
 public:
  // Pauses `passes` from now on; null: never pauses. Waits for a pause in progress.
  void arm(PassControl* passes) noexcept;
  bool pause() noexcept override;
  void resume() noexcept override;
  // Throws the first failure of pause() or resume() since the last call, and forgets it.
  void rethrow();
  // Wall time between pauses and their resumes: inside the launch calls, and in the profiler's
  // Start and Stop costs too.
  double seconds() const noexcept { return 1e-9 * static_cast<double>(paused_ns_.load()); }
  void reset() noexcept;

 private:
  void keep(std::exception_ptr error) noexcept;

  std::atomic<PassControl*> armed_{nullptr};
  std::mutex pass_mutex_;          // held from a successful pause() to its resume()
  PassControl* paused_ = nullptr;  // guarded by pass_mutex_
  std::chrono::steady_clock::time_point paused_at_;  // guarded by pass_mutex_
  std::atomic<std::int64_t> paused_ns_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;  // guarded by error_mutex_
};

}  // namespace kprof::detail
