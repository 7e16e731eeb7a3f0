// Ctrl-C between the benchmark's calls and during a thermal pause, where no Python code runs
// to raise KeyboardInterrupt.
#include "common.hpp"
#include "kprof/errors.hpp"

namespace kprof::py {

void poll_python_interrupt() {
  nb::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return;
  nb::python_error e;  // takes the pending KeyboardInterrupt
  try {
    stash_and_throw(e, "benchmark");
  } catch (const std::runtime_error& stopped) {
    throw kprof::Error(std::string("interrupted: ") + stopped.what());
  }
}

}  // namespace kprof::py
