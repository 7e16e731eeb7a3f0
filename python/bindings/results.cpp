// kprof::Results as _core.Results: session, sweep, and the records / samples / rows as
// columnar dicts of lists, ready for pandas.DataFrame(dict). Python computes nothing from them.
#include "kprof/results.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common.hpp"
#include "core/aggregate.hpp"
#include "kprof/options.hpp"

namespace kprof::py {
namespace {

nb::dict session_dict(const kprof::SessionInfo& s) {
  nb::dict d;
  d["gpu"] = s.gpu;
  d["device"] = s.device;
  d["host"] = s.host;
  d["compute_clock_khz"] = s.compute_clock_khz;
  d["memory_clock_khz"] = s.memory_clock_khz;
  d["backend"] = s.backend;
  d["replay_mode"] = s.replay_mode;
  d["cache_control"] = s.cache_control;
  d["clock_control"] = s.clock_control;
  d["passes"] = s.passes;
  d["runs"] = s.runs;
  d["metrics"] = s.metrics;
  d["kprof_version"] = s.kprof_version;
  d["cuda_driver_version"] = s.cuda_driver_version;
  d["cuda_runtime_version"] = s.cuda_runtime_version;
  d["cupti_version"] = s.cupti_version;
  d["started_at"] = s.started_at;
  d["thermal_mode"] = s.thermal_mode;
  d["clock_source"] = s.clock_source;
  d["profiler_seconds"] = s.profiler_seconds;
  d["throttle_threshold"] = s.throttle_threshold;
  d["stop_rel_half_width"] = s.stop_rel_half_width;
  d["stop_min_runs"] = s.stop_min_runs;
  d["stop_max_runs"] = s.stop_max_runs;
  d["stop_time_budget_s"] = s.stop_time_budget_s;
  return d;
}

template <typename T>
T get_or(const nb::dict& d, const char* key, T fallback) {
  if (!d.contains(key)) return fallback;
  return nb::cast<T>(d[key]);
}

kprof::SessionInfo session_from_dict(const nb::dict& d) {
  kprof::SessionInfo s;
  s.gpu = get_or<std::string>(d, "gpu", "");
  s.device = get_or<int>(d, "device", -1);
  s.host = get_or<std::string>(d, "host", "");
  s.compute_clock_khz = get_or<std::int64_t>(d, "compute_clock_khz", 0);
  s.memory_clock_khz = get_or<std::int64_t>(d, "memory_clock_khz", 0);
  s.backend = get_or<std::string>(d, "backend", "");
  s.replay_mode = get_or<std::string>(d, "replay_mode", "kernel");
  s.cache_control = get_or<std::string>(d, "cache_control", "all");
  s.clock_control = get_or<std::string>(d, "clock_control", "none");
  s.passes = get_or<int>(d, "passes", 1);
  s.runs = get_or<int>(d, "runs", 1);
  s.metrics = get_or<std::vector<std::string>>(d, "metrics", {});
  s.kprof_version = get_or<std::string>(d, "kprof_version", "");
  s.cuda_driver_version = get_or<std::string>(d, "cuda_driver_version", "");
  s.cuda_runtime_version = get_or<std::string>(d, "cuda_runtime_version", "");
  s.cupti_version = get_or<std::string>(d, "cupti_version", "");
  s.started_at = get_or<std::string>(d, "started_at", "");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.thermal_mode = get_or<std::string>(d, "thermal_mode", "");
  s.clock_source = get_or<std::string>(d, "clock_source", "");
  s.profiler_seconds = get_or<double>(d, "profiler_seconds", nan);
  s.throttle_threshold = get_or<double>(d, "throttle_threshold", nan);
  s.stop_rel_half_width = get_or<double>(d, "stop_rel_half_width", nan);
  s.stop_min_runs = get_or<int>(d, "stop_min_runs", 0);
  s.stop_max_runs = get_or<int>(d, "stop_max_runs", 0);
  s.stop_time_budget_s = get_or<double>(d, "stop_time_budget_s", nan);
  return s;
}

nb::list sweep_points(const kprof::Sweep& sweep) {
  nb::list points;
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    nb::list p;
    for (const auto& v : sweep.point(i)) p.append(from_value(v));
    points.append(p);
  }
  return points;
}

nb::dict records_columns(const kprof::Results& r) {
  Columns c;
  nb::list config = c.col("config"), run = c.col("run"), annotation = c.col("annotation"),
           kernel = c.col("kernel"), kernel_index = c.col("kernel_index"), metric = c.col("metric"),
           value = c.col("value"), unit = c.col("unit");
  for (const auto& x : r.records()) {
    config.append(x.config);
    run.append(x.run);
    annotation.append(x.annotation);
    kernel.append(x.kernel);
    kernel_index.append(x.kernel_index);
    metric.append(x.metric);
    value.append(x.value);
    unit.append(x.unit);
  }
  return c.dict;
}

nb::dict samples_columns(const kprof::Results& r) {
  Columns c;
  nb::list config = c.col("config"), run = c.col("run"), annotation = c.col("annotation"),
           metric = c.col("metric"), value = c.col("value"), unit = c.col("unit"),
           kernel = c.col("kernel"), kernel_index = c.col("kernel_index");
  for (const auto& x : r.samples()) {
    config.append(x.config);
    run.append(x.run);
    annotation.append(x.annotation);
    metric.append(x.metric);
    value.append(x.value);
    unit.append(x.unit);
    kernel.append(x.kernel);
    kernel_index.append(x.kernel_index);
  }
  return c.dict;
}

nb::dict rows_columns(const kprof::Results& r) {
  Columns c;
  nb::list annotation = c.col("annotation"), metric = c.col("metric"), config = c.col("config"),
           kernel = c.col("kernel"), kernel_index = c.col("kernel_index"), mean = c.col("mean"),
           stddev = c.col("stddev"), min = c.col("min"), max = c.col("max"),
           median = c.col("median"), num_runs = c.col("num_runs"), ci95_lower = c.col("ci95_lower"),
           ci95_upper = c.col("ci95_upper"), rel_stddev_pct = c.col("rel_stddev_pct"),
           stable = c.col("stable"), unit = c.col("unit"),
           normalized_against = c.col("normalized_against"),
           normalization_value = c.col("normalization_value"), geomean = c.col("geomean"),
           runs_done = c.col("runs_done"), stopped_by = c.col("stopped_by"),
           measured_clock_khz = c.col("measured_clock_khz"), temperature_c = c.col("temperature_c"),
           throttled_runs = c.col("throttled_runs");
  for (const auto& x : r.rows()) {
    runs_done.append(x.runs_done);
    stopped_by.append(x.stopped_by);
    measured_clock_khz.append(x.measured_clock_khz);
    temperature_c.append(x.temperature_c);
    throttled_runs.append(x.throttled_runs);
    annotation.append(x.annotation);
    metric.append(x.metric);
    config.append(x.config);
    kernel.append(x.kernel);
    kernel_index.append(x.kernel_index);
    mean.append(x.mean);
    stddev.append(x.stddev);
    min.append(x.min);
    max.append(x.max);
    median.append(x.median);
    num_runs.append(x.num_runs);
    ci95_lower.append(x.ci95_lower);
    ci95_upper.append(x.ci95_upper);
    rel_stddev_pct.append(x.rel_stddev_pct);
    if (x.stable)
      stable.append(nb::bool_(*x.stable));
    else
      stable.append(nb::none());
    unit.append(x.unit);
    normalized_against.append(x.normalized_against);
    normalization_value.append(x.normalization_value);
    geomean.append(x.geomean);
  }
  return c.dict;
}

// The info collector columns of the rows, in order: [(name, numeric)], and per row the values:
// numeric -> {name}_Avg/_Std/_Min/_Max floats; else {name}: a float, a str, or None.
nb::list info_layout(const kprof::Results& r) {
  nb::list layout;
  std::vector<std::string> seen;
  for (const auto& row : r.rows())
    for (const auto& stat : row.info)
      if (std::find(seen.begin(), seen.end(), stat.name) == seen.end()) {
        seen.push_back(stat.name);
        layout.append(nb::make_tuple(stat.name, stat.numeric));
      }
  return layout;
}

nb::dict info_columns(const kprof::Results& r) {
  nb::dict out;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (nb::handle entry : info_layout(r)) {
    const auto name = nb::cast<std::string>(entry[0]);
    const bool numeric = nb::cast<bool>(entry[1]);
    if (numeric) {
      nb::list avg, std_, min, max;
      for (const auto& row : r.rows()) {
        const auto it = std::find_if(row.info.begin(), row.info.end(),
                                     [&](const kprof::InfoStat& s) { return s.name == name; });
        const bool has = it != row.info.end();
        avg.append(has ? it->mean : nan);
        std_.append(has ? it->stddev : nan);
        min.append(has ? it->min : nan);
        max.append(has ? it->max : nan);
      }
      out[(name + "_Avg").c_str()] = avg;
      out[(name + "_Std").c_str()] = std_;
      out[(name + "_Min").c_str()] = min;
      out[(name + "_Max").c_str()] = max;
    } else {
      nb::list values;
      for (const auto& row : r.rows()) {
        const auto it = std::find_if(row.info.begin(), row.info.end(),
                                     [&](const kprof::InfoStat& s) { return s.name == name; });
        if (it == row.info.end() || (it->text.empty() && std::isnan(it->value)))
          values.append(nb::none());
        else if (!it->text.empty())
          values.append(it->text);
        else
          values.append(it->value);
      }
      out[name.c_str()] = values;
    }
  }
  return out;
}

nb::dict configs_columns(const kprof::Results& r) {
  Columns c;
  nb::list config = c.col("config"), runs = c.col("runs"), stopped_by = c.col("stopped_by"),
           seconds = c.col("seconds");
  for (const auto& x : r.config_info()) {
    config.append(x.config);
    runs.append(x.runs);
    stopped_by.append(x.stopped_by);
    seconds.append(x.seconds);
  }
  return c.dict;
}

nb::dict runs_columns(const kprof::Results& r) {
  Columns c;
  nb::list config = c.col("config"), run = c.col("run"), seconds = c.col("seconds"),
           pause_s = c.col("pause_s"), sm_clock_khz = c.col("sm_clock_khz"),
           temperature_c = c.col("temperature_c"),
           clock_event_reasons = c.col("clock_event_reasons"), throttled = c.col("throttled");
  for (const auto& x : r.run_info()) {
    config.append(x.config);
    run.append(x.run);
    seconds.append(x.seconds);
    pause_s.append(x.pause_s);
    sm_clock_khz.append(x.sm_clock_khz);
    temperature_c.append(x.temperature_c);
    clock_event_reasons.append(x.clock_event_reasons);
    if (x.throttled)
      throttled.append(nb::bool_(*x.throttled));
    else
      throttled.append(nb::none());
  }
  return c.dict;
}

nb::dict info_values_columns(const kprof::Results& r) {
  Columns c;
  nb::list name = c.col("name"), scope = c.col("scope"), config = c.col("config"),
           run = c.col("run"), annotation = c.col("annotation"), value = c.col("value"),
           text = c.col("text");
  for (const auto& x : r.info()) {
    name.append(x.name);
    scope.append(x.scope);
    config.append(x.config);
    run.append(x.run);
    annotation.append(x.annotation);
    value.append(x.value);
    text.append(x.text);
  }
  return c.dict;
}

double float_or_nan(nb::handle v) {
  return v.is_none() ? std::numeric_limits<double>::quiet_NaN() : nb::cast<double>(v);
}

// The conditions tables from columns as configs_columns(), runs_columns() and
// info_values_columns() give them (any may be None); for tests and offline re-analysis.
kprof::detail::Conditions conditions_from_columns(const nb::object& configs, const nb::object& runs,
                                                  const nb::object& info) {
  kprof::detail::Conditions out;
  auto column = [](const nb::object& d, const char* name) {
    return nb::cast<nb::list>(nb::cast<nb::dict>(d)[name]);
  };
  if (!configs.is_none()) {
    nb::list config = column(configs, "config"), n = column(configs, "runs"),
             stopped = column(configs, "stopped_by"), seconds = column(configs, "seconds");
    for (std::size_t i = 0; i < nb::len(config); ++i)
      out.configs.push_back({nb::cast<std::size_t>(config[i]), nb::cast<int>(n[i]),
                             nb::cast<std::string>(stopped[i]), float_or_nan(seconds[i])});
  }
  if (!runs.is_none()) {
    nb::list config = column(runs, "config"), run = column(runs, "run"),
             seconds = column(runs, "seconds"), pause = column(runs, "pause_s"),
             clock = column(runs, "sm_clock_khz"), temp = column(runs, "temperature_c"),
             reasons = column(runs, "clock_event_reasons"), throttled = column(runs, "throttled");
    for (std::size_t i = 0; i < nb::len(config); ++i) {
      kprof::RunInfo x;
      x.config = nb::cast<std::size_t>(config[i]);
      x.run = nb::cast<int>(run[i]);
      x.seconds = float_or_nan(seconds[i]);
      x.pause_s = float_or_nan(pause[i]);
      x.sm_clock_khz = float_or_nan(clock[i]);
      x.temperature_c = float_or_nan(temp[i]);
      x.clock_event_reasons = nb::cast<std::int64_t>(reasons[i]);
      if (!nb::handle(throttled[i]).is_none()) x.throttled = nb::cast<bool>(throttled[i]);
      out.runs.push_back(x);
    }
  }
  if (!info.is_none()) {
    nb::list name = column(info, "name"), scope = column(info, "scope"),
             config = column(info, "config"), run = column(info, "run"),
             annotation = column(info, "annotation"), value = column(info, "value"),
             text = column(info, "text");
    for (std::size_t i = 0; i < nb::len(name); ++i)
      out.info.push_back({nb::cast<std::string>(name[i]), nb::cast<std::string>(scope[i]),
                          nb::cast<std::size_t>(config[i]), nb::cast<int>(run[i]),
                          nb::cast<std::string>(annotation[i]), float_or_nan(value[i]),
                          nb::cast<std::string>(text[i])});
  }
  return out;
}

// Records from the columns of records_columns(); for tests and offline re-analysis.
std::vector<kprof::Record> records_from_columns(const nb::dict& d) {
  auto column = [&](const char* name) { return nb::cast<nb::list>(d[name]); };
  nb::list config = column("config"), run = column("run"), annotation = column("annotation"),
           kernel = column("kernel"), kernel_index = column("kernel_index"),
           metric = column("metric"), value = column("value"), unit = column("unit");
  std::vector<kprof::Record> out(nb::len(config));
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto& r = out[i];
    r.config = nb::cast<std::size_t>(config[i]);
    r.run = nb::cast<int>(run[i]);
    r.annotation = nb::cast<std::string>(annotation[i]);
    r.kernel = nb::cast<std::string>(kernel[i]);
    r.kernel_index = nb::cast<int>(kernel_index[i]);
    r.metric = nb::cast<std::string>(metric[i]);
    nb::handle v = value[i];
    r.value = v.is_none() ? std::numeric_limits<double>::quiet_NaN() : nb::cast<double>(v);
    r.unit = nb::cast<std::string>(unit[i]);
  }
  return out;
}

kprof::Sweep make_sweep(const std::vector<std::string>& names, const nb::list& points) {
  if (names.empty() && nb::len(points) == 1 && nb::len(nb::handle(points[0])) == 0)
    return kprof::Sweep();
  std::vector<std::vector<kprof::Value>> values;
  values.reserve(nb::len(points));
  for (nb::handle p : points) {
    std::vector<kprof::Value> point;
    for (nb::handle v : p) point.push_back(to_value(v));
    values.push_back(std::move(point));
  }
  return kprof::Sweep::list(names, std::move(values));
}

}  // namespace

kprof::Value to_value(nb::handle h) {
  if (PyBool_Check(h.ptr())) return std::int64_t(h.ptr() == Py_True ? 1 : 0);
  if (PyLong_Check(h.ptr())) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow == 0 && !(v == -1 && PyErr_Occurred())) return std::int64_t(v);
    PyErr_Clear();
    return nb::cast<std::string>(nb::str(h));
  }
  if (PyFloat_Check(h.ptr())) return PyFloat_AsDouble(h.ptr());
  if (PyUnicode_Check(h.ptr())) return nb::cast<std::string>(h);
  return nb::cast<std::string>(nb::str(h));
}

nb::object from_value(const kprof::Value& v) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return nb::int_(*i);
  if (auto* d = std::get_if<double>(&v)) return nb::float_(*d);
  return nb::str(std::get<std::string>(v).c_str(), std::get<std::string>(v).size());
}

// Defined here because sweeps are built from Python lists the same way everywhere.
kprof::Sweep sweep_from_python(const std::vector<std::string>& names, const nb::list& points) {
  return make_sweep(names, points);
}

void bind_results(nb::module_& m) {
  nb::class_<kprof::Results>(m, "Results",
                             "What a profile returns: session, sweep, raw records, per-run "
                             "samples and aggregated rows (kprof::Results).")
      .def(nb::init<>())
      .def_prop_ro(
          "session", [](const kprof::Results& r) { return session_dict(r.session()); },
          "Where and how the profile ran, as a dict.")
      .def_prop_ro(
          "sweep_names", [](const kprof::Results& r) { return r.sweep().names(); },
          "Names of the parameters of the sweep.")
      .def_prop_ro(
          "sweep_points", [](const kprof::Results& r) { return sweep_points(r.sweep()); },
          "One list of values (int, float or str) per config, in sweep order.")
      .def_prop_ro("num_records", [](const kprof::Results& r) { return r.records().size(); })
      .def_prop_ro("num_samples", [](const kprof::Results& r) { return r.samples().size(); })
      .def_prop_ro("num_rows", [](const kprof::Results& r) { return r.rows().size(); })
      .def("empty", &kprof::Results::empty)
      .def("records_columns", &records_columns,
           "Raw records as {column: list}: config, run, annotation, kernel, kernel_index, "
           "metric, value, unit.")
      .def("samples_columns", &samples_columns,
           "Per-run samples as {column: list}: config, run, annotation, metric, value, unit, "
           "kernel, kernel_index.")
      .def("rows_columns", &rows_columns,
           "Aggregated rows as {column: list}: annotation, metric, config, kernel, "
           "kernel_index, mean, stddev, min, max, median, num_runs, ci95_lower, ci95_upper, "
           "rel_stddev_pct, stable (None when undefined), unit, normalized_against, "
           "normalization_value, geomean.")
      .def("info_layout", &info_layout,
           "The info collector columns of the rows: [(name, numeric)], in order.")
      .def("info_columns", &info_columns,
           "The rows' info collector columns as {column: list}: <name>_Avg, _Std, _Min, _Max "
           "for numbers, <name> (float, str or None) for one value.")
      .def("configs_columns", &configs_columns, "Per config: config, runs, stopped_by, seconds.")
      .def("runs_columns", &runs_columns,
           "Per run: config, run, seconds, pause_s, sm_clock_khz, temperature_c, "
           "clock_event_reasons (-1 unknown), throttled (None unknown).")
      .def("info_values_columns", &info_values_columns,
           "Every info collector value: name, scope, config, run, annotation, value, text.")
      .def("table", &kprof::Results::table, "An aligned text table of the rows.")
      .def("to_json", &kprof::Results::to_json)
      .def("write_json", &kprof::Results::write_json, nb::arg("path"))
      .def_static("from_json", &kprof::Results::from_json, nb::arg("text"))
      .def_static("read_json", &kprof::Results::read_json, nb::arg("path"))
      .def("write_csv", &kprof::Results::write_csv, nb::arg("prefix"), nb::arg("tag"),
           "Writes <prefix>profiled_data-<tag>.csv, <prefix>processed_data-<tag>.csv and "
           "<prefix>records-<tag>.csv; returns the paths.")
      .def_static("read_csv", &kprof::Results::read_csv, nb::arg("prefix"), nb::arg("tag"))
      .def("__eq__", [](const kprof::Results& a, const kprof::Results& b) { return a == b; })
      .def("__copy__", [](const kprof::Results& r) { return kprof::Results(r); })
      .def(
          "__deepcopy__", [](const kprof::Results& r, nb::handle) { return kprof::Results(r); },
          nb::arg("memo"));

  m.def(
      "_aggregate",
      [](const nb::dict& session, const std::vector<std::string>& names, const nb::list& points,
         const nb::dict& records, const kprof::Options& options, const nb::object& configs,
         const nb::object& runs, const nb::object& info) {
        kprof::SessionInfo s = session_from_dict(session);
        kprof::Sweep sweep = make_sweep(names, points);
        std::vector<kprof::Record> recs = records_from_columns(records);
        kprof::detail::Conditions conditions = conditions_from_columns(configs, runs, info);
        PyErrorStash stash;
        StashScope scope(&stash);
        try {
          return kprof::detail::aggregate(std::move(s), std::move(sweep), std::move(recs), options,
                                          std::move(conditions));
        } catch (const kprof::Error& e) {
          raise_from_core(e, stash);
        } catch (const std::exception&) {
          raise_other_from_core(stash);
        }
      },
      nb::arg("session"), nb::arg("names"), nb::arg("points"), nb::arg("records"),
      nb::arg("options"), nb::arg("configs") = nb::none(), nb::arg("runs") = nb::none(),
      nb::arg("info") = nb::none(),
      "Aggregates raw records (columns as records_columns()) and conditions (as "
      "configs_columns(), runs_columns(), info_values_columns()) with the core's rules, "
      "without a GPU: for tests and offline re-analysis.");
}

}  // namespace kprof::py
