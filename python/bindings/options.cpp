// kprof::Options as _core.Options. String options are parsed by the core's parse_* functions,
// so an invalid value raises kprof.errors.OptionError naming the option, the value and the
// valid choices, with the same wording as the C++ API and the CLI.
#include "kprof/options.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"

namespace kprof::py {
namespace {

// A Python exception of type `type` with `message`, thrown as nb::python_error.
[[noreturn]] void throw_py(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

std::string py_type_name(nb::handle h) {
  return nb::cast<std::string>(nb::str(h.type().attr("__name__")));
}

// A number from a Python object (float, int, numpy scalar...), or nullopt.
std::optional<double> as_number(nb::handle h) {
  if (PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr())) return std::nullopt;
  double d = PyFloat_AsDouble(h.ptr());
  if (d == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return std::nullopt;
  }
  return d;
}

// One entry of a derive_metric result: a number or a (number, unit) pair.
bool entry_of(nb::handle h, double& value, std::string& unit, bool& has_unit) {
  if (auto d = as_number(h)) {
    value = *d;
    has_unit = false;
    return true;
  }
  if ((PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) && nb::len(h) == 2) {
    nb::handle v = h[0], u = h[1];
    auto d = as_number(v);
    if (!d) return false;
    value = *d;
    if (u.is_none()) {
      has_unit = false;
      return true;
    }
    if (!PyUnicode_Check(u.ptr())) return false;
    unit = nb::cast<std::string>(u);
    has_unit = true;
    return true;
  }
  return false;
}

// Interprets what derive_metric returned, as nsight-python does: a number (one metric named
// after the function, no unit), a (value, unit) tuple, or a mapping name -> number | (value,
// unit). Raises TypeError for anything else; warns once per function about missing units.
std::vector<kprof::DerivedValue> interpret_derived(nb::handle out, const std::string& name,
                                                   std::atomic<bool>& warned) {
  std::vector<kprof::DerivedValue> values;
  auto add = [&](const std::string& metric, nb::handle h) {
    kprof::DerivedValue dv;
    dv.name = metric;
    bool has_unit = false;
    if (!entry_of(h, dv.value, dv.unit, has_unit))
      throw_py(PyExc_TypeError,
               "derive_metric '" + name + "' returned " + py_type_name(h) +
                   (metric != name ? " for '" + metric + "'" : std::string()) +
                   "; expected a number, a (value, unit) tuple, or a mapping from metric name "
                   "to a number or a (value, unit) tuple");
    if (!has_unit && !warned.exchange(true)) {
      std::string msg = "Derived metric '" + metric + "' (from derive_metric '" + name +
                        "') does not have a unit specified; return (value, unit) to give it one.";
      if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) throw nb::python_error();
    }
    values.push_back(std::move(dv));
  };
  nb::object mapping_abc = nb::module_::import_("collections.abc").attr("Mapping");
  if (nb::isinstance(out, mapping_abc)) {
    nb::object items = out.attr("items")();
    for (nb::handle item : items) {
      nb::handle key = item[0];
      if (!PyUnicode_Check(key.ptr()))
        throw_py(PyExc_TypeError, "derive_metric '" + name +
                                      "' returned a mapping with a key of type " +
                                      py_type_name(key) + "; metric names must be strings");
      add(nb::cast<std::string>(key), item[1]);
    }
    return values;
  }
  add(name, out);
  return values;
}

nb::object combine_of(const kprof::Options& o) {
  return nb::str(kprof::to_string(o.combine).c_str());
}

void set_combine(kprof::Options& o, nb::object v) {
  if (v.is_none()) {
    o.combine = kprof::CombineKind::automatic;
    o.combine_fn = nullptr;
    return;
  }
  if (PyUnicode_Check(v.ptr())) {
    o.combine = kprof::parse_combine(nb::cast<std::string>(v));
    o.combine_fn = nullptr;
    return;
  }
  if (!PyCallable_Check(v.ptr()))
    throw kprof::OptionError("combine_kernel_metrics", nb::cast<std::string>(nb::repr(v)),
                             "'sum', 'max', 'min', 'mean' or a function of two values");
  auto ref = hold(v);
  o.combine = kprof::CombineKind::custom;
  o.combine_fn = [ref](double a, double b) -> double {
    nb::gil_scoped_acquire gil;
    try {
      nb::object r = ref->get()(a, b);
      auto d = as_number(r);
      if (!d)
        throw_py(PyExc_TypeError,
                 "combine_kernel_metrics returned " + py_type_name(r) + "; expected a number");
      return *d;
    } catch (nb::python_error& e) {
      stash_and_throw(e, "combine_kernel_metrics");
    }
  };
}

void set_derive(kprof::Options& o, nb::object fn, const std::string& name) {
  if (fn.is_none()) {
    o.derive = nullptr;
    return;
  }
  if (!PyCallable_Check(fn.ptr()))
    throw kprof::OptionError("derive_metric", nb::cast<std::string>(nb::repr(fn)),
                             "a function, or None");
  auto ref = hold(fn);
  auto warned = std::make_shared<std::atomic<bool>>(false);
  o.derive = [ref, name, warned](const std::vector<double>& metric_values,
                                 std::size_t config) -> std::vector<kprof::DerivedValue> {
    nb::gil_scoped_acquire gil;
    try {
      nb::list values;
      for (double v : metric_values) values.append(v);
      nb::object out = ref->get()(values, config);
      return interpret_derived(out, name, *warned);
    } catch (nb::python_error& e) {
      stash_and_throw(e, "derive_metric");
    }
  };
}

void set_verbosity(kprof::Options& o, int v) {
  switch (v) {
    case 0:
      o.verbosity = kprof::Verbosity::silent;
      return;
    case 3:
      o.verbosity = kprof::Verbosity::info;
      return;
    case 4:
      o.verbosity = kprof::Verbosity::debug;
      return;
    default:
      throw kprof::OptionError("verbosity", std::to_string(v),
                               "VerbosityLevel.SILENT (0), VerbosityLevel.INFO (3) or "
                               "VerbosityLevel.DEBUG (4)");
  }
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

nb::object stopping_of(const kprof::Options& o) {
  if (!o.stopping) return nb::none();
  const kprof::StoppingRule& r = *o.stopping;
  return nb::make_tuple(r.rel_half_width, r.min_runs, r.max_runs, r.time_budget_s);
}

// None, or (rel_half_width, min_runs, max_runs, time_budget_s).
void set_stopping(kprof::Options& o, nb::object v) {
  if (v.is_none()) {
    o.stopping.reset();
    return;
  }
  if (!PyTuple_Check(v.ptr()) || nb::len(v) != 4)
    throw kprof::OptionError("runs", nb::cast<std::string>(nb::repr(v)),
                             "an integer >= 1, 'auto' or a kprof.StoppingRule");
  kprof::StoppingRule r;
  r.rel_half_width = nb::cast<double>(v[0]);
  r.min_runs = nb::cast<int>(v[1]);
  r.max_runs = nb::cast<int>(v[2]);
  r.time_budget_s = nb::cast<double>(v[3]);
  o.stopping = r;
}

// What a Python collector returned, as the core keeps it: None -> no value, a number -> a
// number, anything else (str, bool, objects) -> its text. The front end keeps the objects.
kprof::InfoResult info_result(nb::handle r) {
  if (r.is_none()) return {};
  if (PyUnicode_Check(r.ptr())) return nb::cast<std::string>(r);
  if (PyBool_Check(r.ptr())) return std::string(r.ptr() == Py_True ? "True" : "False");
  if (PyFloat_Check(r.ptr()) || PyLong_Check(r.ptr()))
    if (auto d = as_number(r)) return *d;
  return nb::cast<std::string>(nb::str(r));
}

// collectors: [(name, scope, fn)], fn(config: int, run: int, annotation: str) returning
// None, a number or a str. A Python exception that is not an Exception (KeyboardInterrupt)
// stops the profile; the front end's wrapper catches the others itself.
void set_info_collectors(kprof::Options& o, const nb::list& collectors) {
  std::vector<kprof::InfoCollector> out;
  for (nb::handle item : collectors) {
    if (!PyTuple_Check(item.ptr()) || nb::len(item) != 3)
      throw kprof::OptionError("info_collectors", nb::cast<std::string>(nb::repr(item)),
                               "(name, scope, function) tuples");
    kprof::InfoCollector c;
    c.name = nb::cast<std::string>(item[0]);
    c.scope = kprof::parse_collection_scope(nb::cast<std::string>(item[1]));
    nb::object fn = nb::borrow(item[2]);
    if (!PyCallable_Check(fn.ptr()))
      throw kprof::OptionError("info_collectors", "'" + c.name + "'",
                               "a collector with a function to call");
    auto ref = hold(fn);
    const std::string name = c.name;
    c.collect = [ref, name](const kprof::CollectorCall& call) -> kprof::InfoResult {
      nb::gil_scoped_acquire gil;
      try {
        nb::object r = ref->get()(call.config, call.run, call.annotation);
        return info_result(r);
      } catch (nb::python_error& e) {
        try {
          stash_and_throw(e, "benchmark");
        } catch (const std::runtime_error& stopped) {
          throw kprof::Error("info collector '" + name +
                             "' stopped the profile: " + stopped.what());
        }
      }
    };
    out.push_back(std::move(c));
  }
  o.info_collectors = std::move(out);
}

nb::list info_collectors_of(const kprof::Options& o) {
  nb::list out;
  for (const auto& c : o.info_collectors)
    out.append(nb::make_tuple(c.name, kprof::to_string(c.scope)));
  return out;
}

std::string repr(const kprof::Options& o) {
  std::string metrics;
  for (const auto& m : o.metrics) metrics += (metrics.empty() ? "'" : ", '") + m + "'";
  const std::string runs =
      o.stopping ? "'auto' (95% interval within " + short_number(o.stopping->rel_half_width) +
                       " of the mean, " + std::to_string(o.stopping->min_runs) + ".." +
                       std::to_string(o.stopping->max_runs) + " runs)"
                 : std::to_string(o.runs);
  return "Options(runs=" + runs + ", metrics=[" + metrics + "], cache_control='" +
         kprof::to_string(o.cache_control) + "', clock_control='" +
         kprof::to_string(o.clock_control) + "', replay_mode='" + kprof::to_string(o.replay_mode) +
         "', thermal_mode='" + kprof::to_string(o.thermal_mode) + "', combine='" +
         kprof::to_string(o.combine) + "', per_kernel=" + (o.per_kernel ? "True" : "False") +
         ", derive=" + (o.derive ? "<function>" : "None") + ", normalize_against='" +
         o.normalize_against + "', verbosity=" + std::to_string(static_cast<int>(o.verbosity)) +
         ")";
}

}  // namespace

void bind_options(nb::module_& m) {
  using kprof::Options;
  nb::class_<Options>(m, "Options",
                      "kprof::Options: what a profile measures and how. String options are "
                      "parsed (and rejected with OptionError) when set.")
      .def(nb::init<>())
      .def_rw("runs", &Options::runs)
      .def_rw("metrics", &Options::metrics)
      .def_prop_rw(
          "cache_control", [](const Options& o) { return kprof::to_string(o.cache_control); },
          [](Options& o, const std::string& v) { o.cache_control = kprof::parse_cache_control(v); })
      .def_prop_rw(
          "clock_control", [](const Options& o) { return kprof::to_string(o.clock_control); },
          [](Options& o, const std::string& v) { o.clock_control = kprof::parse_clock_control(v); })
      .def_prop_rw(
          "replay_mode", [](const Options& o) { return kprof::to_string(o.replay_mode); },
          [](Options& o, const std::string& v) { o.replay_mode = kprof::parse_replay_mode(v); })
      .def_prop_rw(
          "thermal_mode", [](const Options& o) { return kprof::to_string(o.thermal_mode); },
          [](Options& o, const std::string& v) { o.thermal_mode = kprof::parse_thermal_mode(v); })
      .def_prop_rw(
          "thermal_wait", [](const Options& o) { return o.thermal.wait; },
          [](Options& o, std::optional<int> v) { o.thermal.wait = v; }, nb::arg("value").none())
      .def_prop_rw(
          "thermal_cont", [](const Options& o) { return o.thermal.cont; },
          [](Options& o, std::optional<int> v) { o.thermal.cont = v; }, nb::arg("value").none())
      .def_prop_rw(
          "thermal_timeout", [](const Options& o) { return o.thermal.timeout_s; },
          [](Options& o, std::optional<int> v) { o.thermal.timeout_s = v; },
          nb::arg("value").none())
      .def_prop_rw(
          "thermal_device", [](const Options& o) { return o.thermal.device; },
          [](Options& o, std::optional<int> v) { o.thermal.device = v; }, nb::arg("value").none())
      .def_prop_rw("stopping", &stopping_of, &set_stopping, nb::arg("value").none(),
                   "None (Options.runs runs per config), or the stopping rule as "
                   "(rel_half_width, min_runs, max_runs, time_budget_s).")
      .def_rw("throttle_threshold", &Options::throttle_threshold)
      .def("set_info_collectors", &set_info_collectors, nb::arg("collectors"),
           "[(name, scope, fn)]: fn(config, run, annotation) returns None, a number or a str.")
      .def_prop_ro("info_collectors", &info_collectors_of, "[(name, scope)]")
      .def_rw("ignore_kernels", &Options::ignore_kernels)
      .def_prop_rw("combine", &combine_of, &set_combine, nb::arg("value").none(),
                   "'auto', 'sum', 'max', 'min', 'mean', or 'custom' after a function of two "
                   "values was set. Set None for 'auto'.")
      .def_rw("per_kernel", &Options::per_kernel)
      .def("set_derive", &set_derive, nb::arg("fn").none(), nb::arg("name"),
           "fn(metric_values: list[float], config: int) returns a number, a (value, unit) "
           "tuple or a mapping name -> number | (value, unit); a bare number is named `name`.")
      .def_prop_ro("has_derive", [](const Options& o) { return static_cast<bool>(o.derive); })
      .def_rw("normalize_against", &Options::normalize_against)
      .def_rw("output_prefix", &Options::output_prefix)
      .def_rw("output_csv", &Options::output_csv)
      .def_prop_rw(
          "verbosity", [](const Options& o) { return static_cast<int>(o.verbosity); },
          &set_verbosity)
      .def("validate", &Options::validate,
           "Raises OptionError for an invalid value, UnsupportedError for a capability this "
           "build lacks.")
      .def("__repr__", &repr);
}

}  // namespace kprof::py
