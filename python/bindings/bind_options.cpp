// kprof::Options as _core.Options, one property per row of the option table
// (kprof/options.hpp), named as the row (the keyword of analyze.kernel). A Python value is
// converted by the type of its row and the core checks it (Options.validate()); a value of the
// wrong type raises kprof.errors.OptionError with the row's name and valid text, as the core's
// own checks do.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <climits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common.hpp"
#include "kprof/metrics.hpp"
#include "kprof/options.hpp"

namespace kprof::py {
namespace {

template <typename Row>
using ValueOf = typename std::remove_cvref_t<Row>::Value;

// A Python exception of type `type` with `message`, thrown as nb::python_error.
[[noreturn]] void throw_py(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

std::string py_type_name(nb::handle h) {
  return nb::cast<std::string>(nb::str(h.type().attr("__name__")));
}

std::string repr_of(nb::handle h) { return nb::cast<std::string>(nb::repr(h)); }

// A number from a Python object (float, int, numpy scalar...), or nullopt; never a bool or text.
std::optional<double> as_number(nb::handle h) {
  if (PyBool_Check(h.ptr()) || PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr()))
    return std::nullopt;
  double d = PyFloat_AsDouble(h.ptr());
  if (d == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return std::nullopt;
  }
  return d;
}

// An int from a Python integer (operator.index: int, numpy integers), or nullopt; never a bool.
std::optional<int> as_int(nb::handle h) {
  if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr())) return std::nullopt;
  nb::object index = nb::steal(PyNumber_Index(h.ptr()));
  int overflow = 0;
  const long long v = index.is_valid() ? PyLong_AsLongLongAndOverflow(index.ptr(), &overflow) : 0;
  if (!index.is_valid() || overflow != 0 || v < INT_MIN || v > INT_MAX) {
    PyErr_Clear();
    return std::nullopt;
  }
  return static_cast<int>(v);
}

// --- derive_metric ----------------------------------------------------------------------------

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

// Options::derive calling a Python function fn(metric_values: list[float], config: int); a
// bare number it returns is the metric `name`.
struct PyDerive {
  PyRefPtr fn;
  std::string name;
  std::shared_ptr<std::atomic<bool>> warned = std::make_shared<std::atomic<bool>>(false);

  std::vector<kprof::DerivedValue> operator()(const std::vector<double>& metric_values,
                                              std::size_t config) const {
    nb::gil_scoped_acquire gil;
    try {
      nb::list values;
      for (double v : metric_values) values.append(v);
      nb::object out = fn->get()(values, config);
      return interpret_derived(out, name, *warned);
    } catch (nb::python_error& e) {
      stash_and_throw(e, "derive_metric");
    }
  }
};

std::string function_name(nb::handle fn) {
  nb::object name = nb::getattr(fn, "__name__", nb::none());
  return PyUnicode_Check(name.ptr()) ? nb::cast<std::string>(name) : py_type_name(fn);
}

// --- combine_kernel_metrics and info_collectors ------------------------------------------------

kprof::CombineFn py_combine(nb::handle fn) {
  auto ref = hold(nb::borrow(fn));
  return [ref](double a, double b) -> double {
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

// fn(config: int, run: int, annotation: str) returning None, a number or a str. A Python
// exception that is not an Exception (KeyboardInterrupt) stops the profile; the front end's
// wrapper catches the others itself.
std::function<kprof::InfoResult(const kprof::CollectorCall&)> py_collector(nb::handle fn,
                                                                           std::string name) {
  auto ref = hold(nb::borrow(fn));
  return [ref, name](const kprof::CollectorCall& call) -> kprof::InfoResult {
    nb::gil_scoped_acquire gil;
    try {
      return info_result(ref->get()(call.config, call.run, call.annotation));
    } catch (nb::python_error& e) {
      try {
        stash_and_throw(e, "benchmark");
      } catch (const std::runtime_error& stopped) {
        throw kprof::Error("info collector '" + name + "' stopped the profile: " + stopped.what());
      }
    }
  };
}

// --- Python values of the rows ------------------------------------------------------------------

template <typename Row>
[[noreturn]] void reject(const Row& row, nb::handle value, std::string_view valid = {}) {
  throw kprof::OptionError(std::string(row.name), repr_of(value),
                           std::string(valid.empty() ? row.rule.valid : valid));
}

// A list (or tuple, or any iterable but a text or a mapping) of str, each name stripped of
// blanks as nsight-python does; None is nothing where the option may be left unset. A bare str
// is refused, not taken as one name: nsight-python would take its letters, and "k" for ["k"]
// hides the mistake either way.
template <typename Row>
std::vector<std::string> names_of(const Row& row, nb::handle h) {
  using Rule = std::remove_cvref_t<decltype(row.rule)>;
  const std::string valid = "a list of " + std::string(row.rule.noun) + " (str)";
  if (h.is_none()) {
    if constexpr (std::is_same_v<Rule, kprof::rules::MetricNames>) reject(row, h, valid);
    return {};
  }
  if (PyUnicode_Check(h.ptr())) reject(row, h, valid + ", e.g. [" + repr_of(h) + "]");
  const bool iterable = PyIter_Check(h.ptr()) || nb::hasattr(h, "__iter__");
  if (!iterable || PyBytes_Check(h.ptr()) || PyByteArray_Check(h.ptr()) || PyDict_Check(h.ptr()) ||
      nb::hasattr(h, "keys"))
    reject(row, h, valid);
  std::vector<std::string> out;
  for (nb::handle item : h) {
    if (!PyUnicode_Check(item.ptr())) reject(row, item, valid);
    out.push_back(nb::cast<std::string>(item.attr("strip")()));
  }
  return out;
}

// A str, None (empty in Options), or for a path prefix an os.PathLike.
template <typename Row>
std::string text_of(const Row& row, nb::handle h) {
  using Rule = std::remove_cvref_t<decltype(row.rule)>;
  if (h.is_none()) return {};
  if constexpr (std::is_same_v<Rule, kprof::rules::PathPrefix>) {
    nb::object path = nb::steal(PyOS_FSPath(h.ptr()));
    if (!path.is_valid()) {
      PyErr_Clear();
      reject(row, h);
    }
    if (PyBytes_Check(path.ptr()))
      path = nb::steal(PyUnicode_DecodeFSDefaultAndSize(PyBytes_AS_STRING(path.ptr()),
                                                        PyBytes_GET_SIZE(path.ptr())));
    // An empty prefix is the current folder, as in nsight-python (empty in Options: a
    // temporary folder).
    const std::string prefix = nb::cast<std::string>(path);
    return prefix.empty() ? "./" : prefix;
  } else {
    if (!PyUnicode_Check(h.ptr()) || nb::len(h) == 0) reject(row, h);
    return nb::cast<std::string>(h);
  }
}

// An int, "auto" (the default stopping rule), a kprof.StoppingRule (or anything with its four
// fields) or a (rel_half_width, min_runs, max_runs, time_budget_s) tuple.
template <typename Row>
kprof::RunsValue runs_of(const Row& row, nb::handle h) {
  if (auto runs = as_int(h)) return *runs;
  if (PyUnicode_Check(h.ptr())) {
    if (nb::cast<std::string>(h) == "auto") return kprof::StoppingRule{};
    reject(row, h);
  }
  const bool tuple = PyTuple_Check(h.ptr()) && nb::len(h) == 4;
  if (!tuple && !nb::hasattr(h, "min_runs")) reject(row, h);
  auto field = [&](int i, const char* name) -> nb::object {
    return tuple ? nb::borrow(h[i]) : nb::getattr(h, name);
  };
  // Only the types are checked here; the core checks the values (rules::Runs).
  auto number = [&](int i, const char* name, const char* valid) {
    nb::object v = field(i, name);
    if (auto d = as_number(v)) return *d;
    throw kprof::OptionError(std::string("runs.") + name, repr_of(v), valid);
  };
  auto integer = [&](int i, const char* name) {
    nb::object v = field(i, name);
    if (auto n = as_int(v)) return *n;
    throw kprof::OptionError(std::string("runs.") + name, repr_of(v), "an integer");
  };
  return kprof::StoppingRule{number(0, "rel_half_width", "a number"), integer(1, "min_runs"),
                             integer(2, "max_runs"),
                             number(3, "time_budget_s", "a number of seconds")};
}

// [(name, scope, fn)]: the collectors of analyze.kernel in the form kprof.collectors gives them.
template <typename Row>
std::vector<kprof::InfoCollector> collectors_of(const Row& row, nb::handle h) {
  std::vector<kprof::InfoCollector> out;
  if (h.is_none()) return out;
  for (nb::handle item : h) {
    if (!PyTuple_Check(item.ptr()) || nb::len(item) != 3) reject(row, item);
    kprof::InfoCollector c;
    c.name = nb::cast<std::string>(item[0]);
    c.scope = kprof::parse_collection_scope(nb::cast<std::string>(item[1]));
    if (!PyCallable_Check(nb::handle(item[2]).ptr()))
      throw kprof::OptionError(std::string(row.name), "'" + c.name + "'",
                               "a collector with a function to call");
    c.collect = py_collector(item[2], c.name);
    out.push_back(std::move(c));
  }
  return out;
}

// numpy.bool_ (numpy.bool in numpy 2), told by its type's module and name.
bool is_numpy_bool(nb::handle h) {
  const nb::handle type = h.type();
  const std::string module = nb::cast<std::string>(nb::getattr(type, "__module__", nb::str("")));
  const std::string name = nb::cast<std::string>(nb::getattr(type, "__name__", nb::str("")));
  return module == "numpy" && (name == "bool_" || name == "bool");
}

// What is valid for an enumeration option: its rule's text, or else its names.
template <typename Row>
std::string valid_choices(const Row& row) {
  if (!row.rule.valid.empty()) return std::string(row.rule.valid);
  std::vector<std::string> names;
  for (const auto& c : row.rule.choices) names.emplace_back(c.name);
  return kprof::join_choices(names);
}

// The value of `row` that the Python object `h` stands for; OptionError otherwise.
template <typename Row>
ValueOf<Row> from_python(const Row& row, nb::handle h) {
  using V = ValueOf<Row>;
  if constexpr (std::is_same_v<V, int>) {
    if (auto v = as_int(h)) return *v;
  } else if constexpr (std::is_same_v<V, kprof::RunsValue>) {
    return runs_of(row, h);
  } else if constexpr (std::is_same_v<V, std::optional<int>>) {
    if (h.is_none()) return std::nullopt;
    if (auto v = as_int(h)) return *v;
  } else if constexpr (std::is_same_v<V, double>) {
    if (auto v = as_number(h)) return *v;
  } else if constexpr (std::is_same_v<V, bool>) {
    // A bool, Python's or numpy's: a text such as 'yes' is a mistake, not True.
    if (PyBool_Check(h.ptr()) || is_numpy_bool(h)) return PyObject_IsTrue(h.ptr()) == 1;
    reject(row, h, "True or False");
  } else if constexpr (std::is_enum_v<V>) {
    if (row.rule.numbered) {
      if (auto v = as_int(h))
        for (const auto& c : row.rule.choices)
          if (static_cast<int>(c.value) == *v) return c.value;
    } else if (PyUnicode_Check(h.ptr())) {
      return kprof::parse_choice(row.rule.choices, row.name, nb::cast<std::string>(h));
    }
    reject(row, h, valid_choices(row));
  } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
    return names_of(row, h);
  } else if constexpr (std::is_same_v<V, std::string>) {
    return text_of(row, h);
  } else if constexpr (std::is_same_v<V, kprof::CombineValue>) {
    if (h.is_none()) return {};
    if (PyUnicode_Check(h.ptr()))
      return {kprof::parse_choice(row.rule.names, row.name, nb::cast<std::string>(h)), nullptr};
    if (PyCallable_Check(h.ptr())) return {kprof::CombineKind::custom, py_combine(h)};
  } else if constexpr (std::is_same_v<V, kprof::DeriveFn>) {
    if (h.is_none()) return nullptr;
    if (PyCallable_Check(h.ptr())) return PyDerive{hold(nb::borrow(h)), function_name(h)};
  } else {
    return collectors_of(row, h);
  }
  reject(row, h);
}

// The Python object for `value` of `row`.
template <typename Row>
nb::object to_python(const Row& row, const ValueOf<Row>& value) {
  using V = ValueOf<Row>;
  if constexpr (std::is_same_v<V, kprof::RunsValue>) {
    if (const int* runs = std::get_if<int>(&value)) return nb::int_(*runs);
    const auto& r = std::get<kprof::StoppingRule>(value);
    return nb::make_tuple(r.rel_half_width, r.min_runs, r.max_runs, r.time_budget_s);
  } else if constexpr (std::is_same_v<V, std::optional<int>>) {
    return value ? nb::object(nb::int_(*value)) : nb::none();
  } else if constexpr (std::is_enum_v<V>) {
    if (row.rule.numbered) return nb::int_(static_cast<int>(value));
    return nb::str(std::string(kprof::name_of(row.rule.choices, value)).c_str());
  } else if constexpr (std::is_same_v<V, kprof::CombineValue>) {
    return nb::str(kprof::to_string(value.kind).c_str());
  } else if constexpr (std::is_same_v<V, kprof::DeriveFn>) {
    const PyDerive* d = value.template target<PyDerive>();
    return d ? nb::borrow(d->fn->get()) : nb::none();
  } else if constexpr (std::is_same_v<V, std::vector<kprof::InfoCollector>>) {
    nb::list out;
    for (const auto& c : value) out.append(nb::make_tuple(c.name, kprof::to_string(c.scope)));
    return out;
  } else {
    return nb::cast(value);
  }
}

// Sets the option `name` from a Python value; TypeError for a name that is no option.
void set_from_python(kprof::Options& o, const std::string& name, nb::handle value) {
  bool found = false;
  kprof::for_each_row(kprof::kOptionTable, [&](const auto& row) {
    if (found || row.name != name) return;
    row.access.set(o, from_python(row, value));
    found = true;
  });
  if (!found)
    throw_py(PyExc_TypeError, "Options() got an unexpected keyword argument '" + name + "'");
}

// A copy of `o` for one call of a decorated function: `derive` (the call's wrapper of
// derive_metric, fn(metric_values, config)) keeps the name of the function it wraps, and
// `collectors` replaces the collectors. Neither changes what validate() checked.
kprof::Options for_call(const kprof::Options& o, nb::handle derive, nb::handle collectors) {
  kprof::Options call = o;
  if (!derive.is_none()) {
    const PyDerive* given = o.derive.target<PyDerive>();
    call.derive = PyDerive{hold(nb::borrow(derive)), given ? given->name : function_name(derive)};
  }
  if (!collectors.is_none()) set_from_python(call, "info_collectors", collectors);
  return call;
}

nb::list option_table() {
  nb::list rows;
  kprof::for_each_row(kprof::kOptionTable, [&](const auto& row) {
    nb::dict d;
    d["name"] = std::string(row.name);
    d["doc"] = std::string(row.doc);
    d["valid"] = std::string(row.rule.valid);
    d["keyword"] = row.reach == kprof::Reach::everywhere;
    rows.append(d);
  });
  return rows;
}

}  // namespace

void bind_options(nb::module_& m) {
  using kprof::Options;
  nb::class_<Options> cls(m, "Options",
                          "kprof::Options: what a profile measures and how, one property per "
                          "option of the table in kprof/options.hpp. Options(**options) sets "
                          "them by name; a value of the wrong type raises OptionError.");
  cls.def("__init__", [](Options* self, nb::kwargs options) {
    Options o;
    for (auto [name, value] : options) set_from_python(o, nb::cast<std::string>(name), value);
    new (self) Options(std::move(o));
  });
  kprof::for_each_row(kprof::kOptionTable, [&](const auto& row) {
    cls.def_prop_rw(
        row.name.data(), [&row](const Options& o) { return to_python(row, row.access.get(o)); },
        [&row](Options& o, nb::handle v) { row.access.set(o, from_python(row, v)); },
        nb::arg("value").none(), row.doc.data());
  });
  cls.def(
         "set_derive",
         [](Options& o, nb::handle fn, const std::string& name) {
           o.derive = fn.is_none() ? kprof::DeriveFn() : PyDerive{hold(nb::borrow(fn)), name};
         },
         nb::arg("fn").none(), nb::arg("name"),
         "derive_metric with the name of a bare number given: fn(metric_values: list[float], "
         "config: int) returns a number, a (value, unit) tuple or a mapping name -> number | "
         "(value, unit).")
      .def("for_call", &for_call, nb::arg("derive").none(), nb::arg("collectors").none(),
           "A copy for one call of a decorated function, with the call's derive_metric wrapper "
           "(which keeps the name of the function given) and info collectors.")
      .def_prop_ro(
          "measured_metrics",
          [](const Options& o) { return kprof::metrics::tabled_metrics(o.metrics); },
          "The metrics the tables hold: every set of kprof's (set:NAME) replaced by its "
          "members, Nsight Compute's sets and sections left out (the duration where nothing "
          "else is named).")
      .def("validate", &Options::validate,
           "Raises OptionError for an invalid value, UnsupportedError for a capability this "
           "build lacks.")
      .def("validate_settings", &Options::validate_settings,
           "validate() but the check of the metric names against the current GPU's catalog "
           "(done when a profile runs).")
      .def("__repr__", [](const Options& o) { return "Options(" + kprof::to_string(o) + ")"; });
  m.def("option_table", &option_table,
        "The option table: one dict per option (name, doc, valid, keyword: whether it is a "
        "keyword of analyze.kernel), in order.");
  nb::dict modes;
  for (const kprof::ReplayModeTraits& t : kprof::kReplayModes) {
    nb::dict traits;
    traits["ncu_name"] = std::string(t.ncu_name);
    traits["whole_region"] = t.whole_region;
    traits["fixed_runs"] = t.fixed_runs;
    modes[std::string(t.name).c_str()] = traits;
  }
  m.attr("REPLAY_MODES") = modes;  // kprof::kReplayModes by name: what each mode is
  m.def("make_output_prefix", &kprof::make_output_prefix, nb::arg("options"),
        "The prefix output_csv writes with: output_prefix with its folder made, or a fresh "
        "temporary folder when it is empty.");
}

}  // namespace kprof::py
