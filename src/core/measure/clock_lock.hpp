// clock_control="base": the SM clock locked to base for the whole profile, and given back on
// every way out of it: the end of the profile, an exception (RAII), exit() (atexit), and
// SIGINT / SIGTERM (a handler that restores the clocks, then hands the signal on to the handler
// that was there before: Python's KeyboardInterrupt, or the default action).
//
// Clocks of a shared machine are not one user's to change: use "base" only on a machine that is
// yours (docs/conditions.md).
#pragma once

#include <csignal>
#include <string>

#include "core/measure/device_probe.hpp"

namespace kprof::detail {

class ClockLock {
 public:
  // Locks the clocks through `setter` (which must outlive the lock) and registers the restore
  // for exit and signals. Throws what setter.lock_base() throws; then nothing is locked.
  explicit ClockLock(ClockSetter& setter);
  ~ClockLock();
  ClockLock(const ClockLock&) = delete;
  ClockLock& operator=(const ClockLock&) = delete;

  // Gives the clocks back, once (whoever comes first: this, the destructor, atexit, a signal).
  // Returns what went wrong, "" on success or when they were given back already.
  std::string restore() noexcept;

 private:
  ClockSetter& setter_;
};

// For tests: whether kprof's SIGINT/SIGTERM handlers are installed now, and the handler itself.
bool clock_signal_handlers_installed() noexcept;
void clock_signal_handler(int signal, siginfo_t* info, void* context) noexcept;

}  // namespace kprof::detail
