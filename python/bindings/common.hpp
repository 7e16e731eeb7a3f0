// Shared pieces of the kprof._core bindings: one init function per concern, the conversion of
// kprof errors to kprof.errors classes, and the holder that lets C++ keep Python callables.
#pragma once

#include <nanobind/nanobind.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kprof/errors.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof::py {

namespace nb = nanobind;

void bind_errors(nb::module_& m);
void bind_options(nb::module_& m);
void bind_results(nb::module_& m);
void bind_arrays(nb::module_& m);
void bind_profile(nb::module_& m);
void bind_annotate(nb::module_& m);
void bind_system(nb::module_& m);
void bind_demo(nb::module_& m);
void bind_cli(nb::module_& m);
void bind_log(nb::module_& m);
void bind_compare(nb::module_& m);
void bind_metrics(nb::module_& m);
void bind_display(nb::module_& m);
void bind_progress(nb::module_& m);
void bind_layout(nb::module_& m);

// --- progress (bind_progress.cpp) ---------------------------------------------------------------

// The front end's progress observer of one _core.profile call (the one set by _set_progress,
// before the call or by its on_checked callback), active from then to the scope's end: it hears of
// each measured run from the engine, and close(failed) is called on destruction. Needs the GIL.
class ProgressScope {
 public:
  ProgressScope();
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;
  // Takes the observer handed over since the scope began, if it has none yet.
  void take();
  // For ProfileHooks::run_done: tells the observer of each measured run, if there is one.
  std::function<void(std::size_t config, int run)> run_done() const;

 private:
  PyObject* observer_ = nullptr;
  PyObject* previous_;
  int uncaught_;
};

// Hands a core log line to the running profile's observer; false when there is none (the line
// then goes to sys.stdout). Needs the GIL.
bool deliver_log_line(const std::string& line);

// --- conditions (bind_conditions.cpp)
// -------------------------------------------------------------

// For ProfileHooks::interrupt_poll, after every call of the benchmark and between the sleeps
// of a thermal pause: a pending Ctrl-C raises KeyboardInterrupt there, instead of in the next
// call or after the GPU cooled. Takes the GIL.
void poll_python_interrupt();

// --- errors -----------------------------------------------------------------------------------

// The kprof.errors instance for `e`: the class named by e.kind(), with its attributes (option,
// value, valid / holder / config, run) and partial_results. Needs the GIL.
nb::object make_py_error(const kprof::Error& e);

// Sets `exc` (an exception instance) as the pending Python error and throws nb::python_error,
// which nanobind hands back to Python unchanged. Needs the GIL.
[[noreturn]] void raise_py(nb::handle exc);

// A Python exception raised by a callback that the core called (the benchmark function,
// derive_metric, combine_kernel_metrics). The core only sees a C++ exception carrying its
// message; the original is kept here and re-raised once the core has unwound.
struct PyErrorStash {
  nb::object exc;     // the exception instance; invalid when nothing failed
  std::string where;  // "benchmark", "derive_metric" or "combine_kernel_metrics"
  bool empty() const { return !exc.is_valid(); }
};

// The stash of the profile running on this thread (nullptr outside profile()).
PyErrorStash* current_stash() noexcept;
void set_current_stash(PyErrorStash* stash) noexcept;

// Makes a stash the current stash of this thread for the lifetime of the scope.
class StashScope {
 public:
  explicit StashScope(PyErrorStash* stash) : previous_(current_stash()) {
    set_current_stash(stash);
  }
  ~StashScope() { set_current_stash(previous_); }
  StashScope(const StashScope&) = delete;
  StashScope& operator=(const StashScope&) = delete;

 private:
  PyErrorStash* previous_;
};

// The core failed with `e` while `stash` may hold the Python exception of a callback: raises
// the right Python exception (see errors.cpp). Needs the GIL.
[[noreturn]] void raise_from_core(const kprof::Error& e, PyErrorStash& stash);

// The core failed with an exception that is not a kprof::Error: re-raises the stashed Python
// exception when there is one, else rethrows the current C++ exception. Call from a catch block.
[[noreturn]] void raise_other_from_core(PyErrorStash& stash);

// Called inside a callback with the GIL held while a Python exception propagates: keeps it in
// the current stash (the first one wins) and throws std::runtime_error("<Type>: <message>").
[[noreturn]] void stash_and_throw(nb::python_error& e, const char* where);

// --- Python callables held by C++ std::function objects -----------------------------------------

// Owns a reference to a Python object from C++ code that may copy or destroy it without the
// GIL (std::function copies inside the engine): the reference is only dropped under the GIL.
class PyRef {
 public:
  explicit PyRef(nb::object o) : obj_(o.release().ptr()) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    if (!obj_) return;
    if (nb::detail::cleanup_guard guard{}) Py_DECREF(obj_);
  }
  nb::handle get() const { return obj_; }

 private:
  PyObject* obj_;
};
using PyRefPtr = std::shared_ptr<PyRef>;

inline PyRefPtr hold(nb::object o) { return std::make_shared<PyRef>(std::move(o)); }

// --- values -----------------------------------------------------------------------------------

// int -> int64 (out of range: its decimal string), float -> double, str -> string, bool -> 0/1,
// anything else -> str(obj). Python converts config objects to int/float/str before this.
kprof::Value to_value(nb::handle h);
nb::object from_value(const kprof::Value& v);

// The session as a dict of its fields, named as in the JSON document, and back: a key that is
// missing keeps the value `base` has (bind_results.cpp).
nb::dict session_dict(const kprof::SessionInfo& s);
kprof::SessionInfo session_from_dict(const nb::dict& d, kprof::SessionInfo base = {});

// Column builder for DataFrames: one Python list per column, appended row by row.
struct Columns {
  nb::dict dict;
  nb::list col(const char* name) {
    nb::list l;
    dict[name] = l;
    return l;
  }
};

// Sweep::list(names, points) with every value converted by to_value(); no names and one empty
// point give the one-config Sweep() of a benchmark without parameters.
kprof::Sweep sweep_from_python(const std::vector<std::string>& names, const nb::list& points);

}  // namespace kprof::py
