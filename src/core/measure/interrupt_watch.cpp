#include "core/measure/interrupt_watch.hpp"

#include <csignal>

#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

// SA_RESETHAND has put SIGINT's default action back already: the second Ctrl-C ends the
// program while the profile winds down.
extern "C" void on_sigint(int) { g_interrupted = 1; }

}  // namespace

InterruptWatch::InterruptWatch() {
  struct sigaction current {};
  if (sigaction(SIGINT, nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
      (current.sa_flags & SA_SIGINFO) != 0)
    return;
  struct sigaction watch {};
  watch.sa_handler = on_sigint;
  watch.sa_flags = SA_RESETHAND;
  sigemptyset(&watch.sa_mask);
  g_interrupted = 0;
  installed_ = sigaction(SIGINT, &watch, nullptr) == 0;
}

InterruptWatch::~InterruptWatch() {
  struct sigaction current {};
  if (!installed_ || sigaction(SIGINT, nullptr, &current) != 0 || current.sa_handler != on_sigint)
    return;  // the signal came (SA_RESETHAND gave the default back), or the program set its own
  struct sigaction restore {};
  restore.sa_handler = SIG_DFL;
  sigemptyset(&restore.sa_mask);
  sigaction(SIGINT, &restore, nullptr);
  g_interrupted = 0;
}

void InterruptWatch::check() const {
  if (installed_ && g_interrupted != 0)
    throw InterruptError(
        "interrupted (Ctrl-C): the profile stopped after the run in progress; the runs "
        "measured before are kept in partial_results (a second Ctrl-C ends the program)");
}

}  // namespace kprof::detail
