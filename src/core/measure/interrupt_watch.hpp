// Ctrl-C during a profile of a C++ program that leaves SIGINT to its default action.
#pragma once

namespace kprof::detail {

// While it lives, the first SIGINT stops the profile after the run in progress (check() throws
// InterruptError, which carries the runs measured before), and a second ends the program at
// once, as SIGINT's default action would. A program with a SIGINT handler of its own (Python,
// or one that ignores the signal) keeps it: then the watch does nothing, and the front end
// stops the profile its own way (ProfileHooks::interrupt_poll).
class InterruptWatch {
 public:
  InterruptWatch();
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  // Throws InterruptError once a SIGINT arrived while the watch was installed.
  void check() const;
  bool installed() const noexcept { return installed_; }

 private:
  bool installed_ = false;
};

}  // namespace kprof::detail
