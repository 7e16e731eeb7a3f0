// kprof::Error -> kprof.errors.<kind()>, with the attributes of each class and partial results.
#include <nanobind/stl/string.h>

#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include "common.hpp"
#include "kprof/errors.hpp"
#include "kprof/results.hpp"

namespace kprof::py {
namespace {

thread_local PyErrorStash* t_stash = nullptr;

nb::dict attributes_of(const kprof::Error& e) {
  nb::dict attrs;
  if (auto* o = dynamic_cast<const kprof::OptionError*>(&e)) {
    attrs["option"] = o->option();
    attrs["value"] = o->value();
    attrs["valid"] = o->valid();
  } else if (auto* c = dynamic_cast<const kprof::CuptiBusyError*>(&e)) {  // CountersBusyError too
    attrs["holder"] = c->holder();
  } else if (auto* u = dynamic_cast<const kprof::UserFunctionError*>(&e)) {
    attrs["config"] = u->config();
    attrs["run"] = u->run();
  }
  return attrs;
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const kprof::Error& e) {
    nb::object exc;
    try {
      exc = make_py_error(e);
    } catch (nb::python_error& pe) {
      // kprof.errors could not be imported or built the error: keep the message at least.
      pe.discard_as_unraisable("kprof._core error translation");
      PyErr_SetString(PyExc_RuntimeError, e.what());
      return;
    }
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  }
}

}  // namespace

nb::object make_py_error(const kprof::Error& e) {
  nb::object errors = nb::module_::import_("kprof.errors");
  // The core's results; kprof.errors makes them the user's kprof.ProfileResults.
  nb::object partial = nb::none();
  if (e.partial_results()) partial = nb::cast(kprof::Results(*e.partial_results()));
  return errors.attr("_from_core")(e.kind(), e.what(), attributes_of(e), partial);
}

void raise_py(nb::handle exc) {
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw nb::python_error();
}

PyErrorStash* current_stash() noexcept { return t_stash; }
void set_current_stash(PyErrorStash* stash) noexcept { t_stash = stash; }

static bool is_instance(nb::handle obj, PyObject* cls) {
  return PyObject_IsInstance(obj.ptr(), cls) == 1;
}

void stash_and_throw(nb::python_error& e, const char* where) {
  nb::object exc = nb::borrow(e.value());
  std::string message;
  try {
    message = nb::cast<std::string>(nb::str(exc.type().attr("__name__")));
    std::string text = nb::cast<std::string>(nb::str(exc));
    if (!text.empty()) message += ": " + text;
  } catch (...) {
    PyErr_Clear();
    message = "a Python exception";
  }
  if (PyErrorStash* s = current_stash(); s && s->empty()) {
    s->exc = exc;
    s->where = where;
  }
  // KeyboardInterrupt, SystemExit: a kprof error, which the core passes on at once (a user
  // function's error may wait for its config: see the engine's unmeasured calls).
  if (std::string(where) == "benchmark" && !is_instance(exc, PyExc_Exception))
    throw kprof::Error(message);
  throw std::runtime_error(message);
}

// The core failed with `e` while `stash` may hold the Python exception that caused it.
void raise_from_core(const kprof::Error& e, PyErrorStash& stash) {
  nb::object err = make_py_error(e);
  if (stash.empty()) raise_py(err);

  nb::object original = stash.exc;
  stash.exc = nb::object();
  if (stash.where != "benchmark") {
    // derive_metric or combine_kernel_metrics failed while the core was already handling
    // `e` (salvaging partial results): `e` is the error, the callback's is context.
    nb::setattr(err, "__context__", original);
    raise_py(err);
  }
  // KeyboardInterrupt, SystemExit, GeneratorExit: never wrapped, but with what was measured
  // (a Ctrl-C keeps the runs made).
  if (!is_instance(original, PyExc_Exception)) {
    nb::setattr(original, "partial_results", nb::getattr(err, "partial_results", nb::none()));
    raise_py(original);
  }
  nb::object kprof_error = nb::module_::import_("kprof.errors").attr("KprofError");
  if (is_instance(original, kprof_error.ptr())) {
    // A kprof error raised by the user's code (AnnotationError from annotate...): itself, with
    // what was measured before.
    if (nb::getattr(original, "partial_results", nb::none()).is_none())
      nb::setattr(original, "partial_results", nb::getattr(err, "partial_results", nb::none()));
    raise_py(original);
  }
  nb::setattr(err, "__cause__", original);
  raise_py(err);
}

void raise_other_from_core(PyErrorStash& stash) {
  // A callback's exception that the core let through (derive_metric and
  // combine_kernel_metrics run in the aggregation, which wraps nothing): the user's exception
  // itself, as calling the function directly would raise it.
  if (!stash.empty()) {
    nb::object original = stash.exc;
    stash.exc = nb::object();
    raise_py(original);
  }
  throw;
}

void bind_errors(nb::module_& m) {
  nb::register_exception_translator(translate);

  nb::list kinds;
  for (std::string_view kind : kprof::error_kinds())
    kinds.append(nb::str(kind.data(), kind.size()));
  m.attr("ERROR_KINDS") = nb::tuple(kinds);
}

}  // namespace kprof::py
