#include "core/measure/clock_lock.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "kprof/log.hpp"

namespace kprof::detail {
namespace {

// The setter whose clocks are locked now; null when none is. Exchanged atomically, so that
// exactly one of restore(), atexit and a signal handler gives the clocks back.
std::atomic<ClockSetter*> g_locked{nullptr};

constexpr int kSignals[] = {SIGINT, SIGTERM};
struct sigaction g_previous[2];
bool g_installed = false;
std::mutex g_install_mutex;

int slot(int signal) { return signal == SIGINT ? 0 : 1; }

void restore_now() noexcept {
  if (ClockSetter* s = g_locked.exchange(nullptr)) (void)s->reset();
}

void restore_at_exit() { restore_now(); }

bool handler_is_ours(int signal) {
  struct sigaction current {};
  if (sigaction(signal, nullptr, &current) != 0) return false;
  return (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == &clock_signal_handler;
}

void install_handlers() {
  std::lock_guard lock(g_install_mutex);
  static const bool at_exit = std::atexit(&restore_at_exit) == 0;
  (void)at_exit;
  if (g_installed) return;
  for (int signal : kSignals) {
    struct sigaction ours {};
    ours.sa_sigaction = &clock_signal_handler;
    ours.sa_flags = SA_SIGINFO;
    sigemptyset(&ours.sa_mask);
    sigaction(signal, &ours, &g_previous[slot(signal)]);
  }
  g_installed = true;
}

// Puts the previous handlers back, unless someone replaced ours meanwhile (then theirs stays).
void uninstall_handlers() {
  std::lock_guard lock(g_install_mutex);
  if (!g_installed) return;
  for (int signal : kSignals)
    if (handler_is_ours(signal)) sigaction(signal, &g_previous[slot(signal)], nullptr);
  g_installed = false;
}

}  // namespace

void clock_signal_handler(int signal, siginfo_t* info, void* context) noexcept {
  // Not async-signal-safe in the strict sense (NVML is a library call), but a process about to
  // die with locked clocks is worse; the reset is attempted once.
  restore_now();
  const struct sigaction& previous = g_previous[slot(signal)];
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != nullptr) previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler == SIG_IGN) return;
  if (previous.sa_handler == SIG_DFL) {
    // The default action (terminate): do it, with the default handler back in place.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(signal, &dfl, nullptr);
    raise(signal);
    return;
  }
  previous.sa_handler(signal);
}

bool clock_signal_handlers_installed() noexcept { return g_installed; }

ClockLock::ClockLock(ClockSetter& setter) : setter_(setter) {
  // Handlers first: a signal between the lock and the registration would leave clocks locked.
  install_handlers();
  try {
    setter_.lock_base();
  } catch (...) {
    uninstall_handlers();
    throw;
  }
  g_locked.store(&setter_);
}

ClockLock::~ClockLock() {
  const std::string error = restore();
  if (error.empty()) return;
  try {
    log_line("[kprof] warning: could not give the SM clock of " + setter_.device() +
             " back to the driver (" + error + "); reset it with `nvidia-smi -rgc`");
  } catch (...) {  // a destructor: nothing more to do
  }
}

std::string ClockLock::restore() noexcept {
  ClockSetter* expected = &setter_;
  std::string error;
  if (g_locked.compare_exchange_strong(expected, nullptr)) error = setter_.reset();
  try {
    uninstall_handlers();
  } catch (...) {
  }
  return error;
}

}  // namespace kprof::detail
