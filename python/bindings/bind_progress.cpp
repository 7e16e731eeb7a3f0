// The Python front end's view of a running profile, so that it can draw a progress bar in place
// of the core's per-config "[kprof]" lines instead of printing both.
//
// kprof._core._set_progress(observer) hands an object to the next _core.profile call. While
// that profile runs:
//   observer.line(text)        receives each line the core logs (instead of sys.stdout);
//   observer.run_done(config)  is called after each measured run, with the config's index
//                              (the engine's count: range replay's other calls of the
//                              benchmark function are not runs);
//   observer.close(failed)     is called once when the profile returns (False) or raises (True).
// An observer handed over while the profile runs (by its on_checked callback, once the core has
// accepted the options) is taken then, so that a refused call draws no progress bar.
// Everything runs on the profiling thread with the GIL held; an exception raised by the
// observer is reported as unraisable and never disturbs the profile.
#include <exception>
#include <string>

#include "common.hpp"
#include "kprof/log.hpp"

namespace kprof::py {
namespace {

// Both only touched with the GIL held. Plain pointers (owned references), not nb::object, so
// that nothing is released after the interpreter is gone.
PyObject* g_next = nullptr;    // set by _set_progress, taken by the next profile
PyObject* g_active = nullptr;  // the observer of the profile running now

void set_next(nb::handle observer) {
  PyObject* old = g_next;
  g_next = observer.is_none() ? nullptr : nb::borrow(observer).release().ptr();
  Py_XDECREF(old);
}

void notify(nb::handle observer, const char* method, nb::handle arg) {
  nb::error_scope keep_pending_error;  // the profile may be unwinding a Python error
  try {
    observer.attr(method)(arg);
  } catch (nb::python_error& e) {
    e.discard_as_unraisable("kprof progress observer");
  } catch (const std::exception&) {  // e.g. a failed conversion: the bar is not worth a failure
  }
}

}  // namespace

ProgressScope::ProgressScope() : previous_(g_active), uncaught_(std::uncaught_exceptions()) {
  take();
}

void ProgressScope::take() {
  if (observer_ || !g_next) return;
  observer_ = g_next;
  g_next = nullptr;
  g_active = observer_;
}

// Only this scope's profile calls the observer, and only while it runs, inside this scope.
std::function<void(std::size_t, int)> ProgressScope::run_done() const {
  return [this](std::size_t config, int) {
    if (!observer_) return;
    nb::gil_scoped_acquire gil;
    notify(observer_, "run_done", nb::int_(config));
  };
}

ProgressScope::~ProgressScope() {
  g_active = previous_;
  if (!observer_) return;
  const bool failed = std::uncaught_exceptions() > uncaught_;
  notify(observer_, "close", nb::bool_(failed));
  Py_DECREF(observer_);
}

bool deliver_log_line(const std::string& line) {
  if (!g_active) return false;
  notify(g_active, "line", nb::str(line.c_str(), line.size()));
  return true;
}

void bind_progress(nb::module_& m) {
  m.def("config_line_due", &kprof::config_line_due, nb::arg("config"), nb::arg("configs"),
        nb::arg("now"), nb::arg("last"),
        "Whether a finished config gets its line in a log (kprof/log.hpp): the first, the last, "
        "and one every few seconds.");
  m.def("_set_progress", &set_next, nb::arg("observer").none(),
        "Hands `observer` (or None) to the next _core.profile call: it receives the core's log "
        "lines (line(text)), one run_done(config_index) per run and close(failed) at the end.");
}

}  // namespace kprof::py
