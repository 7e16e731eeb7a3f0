#include "core/measure/counter_wait.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

#include "core/say.hpp"

namespace kprof::detail {
namespace {

// The engine's Ctrl-C check for the profile running on this thread (InterruptPollScope).
thread_local std::function<void()> t_interrupt_poll;

std::string call_suffix(std::string_view call) {
  if (call.empty()) return {};
  return " (" + std::string(call) + ": CUPTI_ERROR_HARDWARE_BUSY)";
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

}  // namespace

CounterWaitClock system_counter_wait_clock() {
  CounterWaitClock c;
  c.now = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  c.sleep = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  c.poll = [] {
    if (t_interrupt_poll) t_interrupt_poll();
  };
  return c;
}

InterruptPollScope::InterruptPollScope(std::function<void()> poll)
    : previous_(std::exchange(t_interrupt_poll, std::move(poll))) {}

InterruptPollScope::~InterruptPollScope() { t_interrupt_poll = std::move(previous_); }

std::string CounterGpu::label() const {
  std::string text = "GPU " + std::to_string(ordinal);
  if (name) {
    if (const std::string n = name(); !n.empty()) text += " (" + n + ")";
  }
  return text;
}

std::string counters_busy_message(const CounterGpu& gpu, std::string_view call) {
  return "another process profiles the counters of " + gpu.label() +
         "; counters are exclusive per GPU: profile one process at a time, or pass "
         "wait_for_counters=<seconds> to wait for them" +
         call_suffix(call);
}

std::string counters_still_busy_message(const CounterGpu& gpu, double wait_s, double waited_s,
                                        std::string_view call) {
  return "another process still profiles the counters of " + gpu.label() + " after kprof waited " +
         fixed(waited_s, 1) + " s for them (wait_for_counters=" + seconds_text(wait_s) +
         "); counters are exclusive per GPU: profile one process at a time, or pass a longer "
         "wait_for_counters" +
         call_suffix(call);
}

CounterWait::CounterWait(double wait_s, CounterWaitClock clock, Say say)
    : wait_s_(wait_s), clock_(std::move(clock)), say_(std::move(say)) {}

void CounterWait::take(const std::function<bool()>& try_take, const CounterGpu& gpu,
                       std::string_view call) {
  ++tries_;
  if (try_take()) return;
  if (!(wait_s_ > 0)) throw CountersBusyError(counters_busy_message(gpu, call));
  if (!said_ && say_) {
    say_("waiting for GPU " + std::to_string(gpu.ordinal) +
         "'s counters (another process profiles them)");
  }
  said_ = true;
  // The time of the tries counts too: reading the counters' availability takes ~0.1 s.
  const double waited_before = waited_s_;
  const double start = clock_.now();
  double pause = kFirstSleep;
  for (;;) {
    waited_s_ = waited_before + (clock_.now() - start);
    // Less than a millisecond left is no time for another try (and keeps a scripted clock,
    // whose sums round, from spinning on a remainder it cannot add).
    const double left = wait_s_ - waited_s_;
    if (left < 1e-3)
      throw CountersBusyError(counters_still_busy_message(gpu, wait_s_, waited_s_, call));
    clock_.sleep(std::min(pause, left));
    if (clock_.poll) clock_.poll();
    ++tries_;
    const bool taken = try_take();
    waited_s_ = waited_before + (clock_.now() - start);
    if (taken) return;
    pause = std::min(pause * 2, kMaxSleep);
  }
}

}  // namespace kprof::detail
