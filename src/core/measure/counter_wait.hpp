// Waiting for a GPU's hardware counters while another process profiles them. A GPU's counters
// serve one process at a time: CUPTI answers CUPTI_ERROR_HARDWARE_BUSY to every other one from
// the holder's first pass until it disables its range profiler (docs/metrics.md, "Counters are
// exclusive per GPU"). CounterWait retries taking them with a growing sleep until they are free
// or Options::wait_for_counters is spent, then raises CountersBusyError. It knows no CUPTI: the
// GPU layer hands it a function that tries once, and tests a scripted one and a fake clock.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "kprof/errors.hpp"

namespace kprof::detail {

// The clock the wait runs on: the seam its tests script.
struct CounterWaitClock {
  std::function<double()> now;        // monotonic seconds
  std::function<void(double)> sleep;  // sleeps that many seconds
  // Called after every sleep; throws to stop waiting (Ctrl-C). May be empty.
  std::function<void()> poll;
};

// steady_clock, std::this_thread::sleep_for, and as poll the interrupt poll that the engine
// published for this thread (InterruptPollScope), if any.
CounterWaitClock system_counter_wait_clock();

// While it lives, system_counter_wait_clock() polls `poll` on this thread: the engine publishes
// its Ctrl-C check around the backend, whose constructor-time waits have no hooks of their own.
class InterruptPollScope {
 public:
  explicit InterruptPollScope(std::function<void()> poll);
  ~InterruptPollScope();
  InterruptPollScope(const InterruptPollScope&) = delete;
  InterruptPollScope& operator=(const InterruptPollScope&) = delete;

 private:
  std::function<void()> previous_;
};

// The GPU whose counters are asked for, as messages name it: "GPU 0 (NVIDIA H200)". The name
// is read only when a message needs it.
struct CounterGpu {
  int ordinal = 0;
  std::function<std::string()> name;
  std::string label() const;  // "GPU 0 (NVIDIA H200)", or "GPU 0" without a name
};

// CountersBusyError's message when kprof did not wait; `call` is the CUPTI call that answered
// busy, "" for none.
std::string counters_busy_message(const CounterGpu& gpu, std::string_view call);
// CountersBusyError's message after waiting `waited_s` of `wait_s` seconds.
std::string counters_still_busy_message(const CounterGpu& gpu, double wait_s, double waited_s,
                                        std::string_view call);

class CounterWait {
 public:
  static constexpr double kFirstSleep = 0.05;  // seconds before the second try
  static constexpr double kMaxSleep = 1.0;     // the sleep doubles up to this

  using Say = std::function<void(const std::string&)>;  // an INFO line

  // `wait_s` is Options::wait_for_counters: 0 raises at the first busy answer, infinity waits
  // until the counters are free. `say` hears "waiting for GPU 0's counters (...)" once.
  CounterWait(double wait_s, CounterWaitClock clock, Say say = {});

  // Calls `try_take` until it returns true (the counters were taken); false means they are busy.
  // Sleeps 50 ms, then twice as long each time up to 1 s, while this wait has waited less than
  // wait_s in all (over every take() of one profile). Throws CountersBusyError naming `gpu`,
  // `call` and the seconds waited once it is spent; what try_take or the poll throws passes on.
  void take(const std::function<bool()>& try_take, const CounterGpu& gpu, std::string_view call);

  double waited_s() const noexcept { return waited_s_; }
  int tries() const noexcept { return tries_; }

 private:
  double wait_s_;
  CounterWaitClock clock_;
  Say say_;
  double waited_s_ = 0;  // over every take()
  int tries_ = 0;
  bool said_ = false;
};

}  // namespace kprof::detail
