// kprof::Results as _core.Results: session, sweep, and the records / samples / rows as
// columnar dicts of lists, ready for pandas.DataFrame(dict). Python computes nothing from them.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common.hpp"
#include "kprof/analysis.hpp"
#include "kprof/detail/result_fields.hpp"
#include "kprof/export.hpp"
#include "kprof/merge.hpp"
#include "kprof/options.hpp"
#include "kprof/profile.hpp"
#include "kprof/results.hpp"
#include "kprof/stalls.hpp"

namespace kprof::py {
namespace {

using namespace kprof::fields;

// A field as Python sees it: an unset optional is None.
template <typename T>
nb::object to_py(const T& v) {
  return nb::cast(v);
}
template <typename T>
nb::object to_py(const std::optional<T>& v) {
  return v ? nb::cast(*v) : nb::none();
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

// One column's list, built value by value. A text equal to the one before it is the same
// Python object again: a column of a million samples holds a few metric, kernel and unit names,
// and a str of each value would be a million objects of memory and time.
struct ColumnList {
  nb::list list;
  std::string last_text;
  nb::object last_str;

  template <typename T>
  void append(const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      if (!last_str.is_valid() || v != last_text) {
        last_text = v;
        last_str = nb::str(v.data(), v.size());
      }
      list.append(last_str);
    } else {
      list.append(to_py(v));
    }
  }
};

// Items by column ({"value": [..], ...}): one list per field of `fields`, in its order.
template <typename Item, typename Fields>
nb::dict columns(const std::vector<Item>& items, Fields fields) {
  Columns c;
  std::vector<ColumnList> lists;
  const Item blank{};
  fields(blank, [&](const char* name, const auto&) { lists.push_back({c.col(name)}); });
  for (const Item& item : items) {
    std::size_t k = 0;
    fields(item, [&](const char*, const auto& v) { lists[k++].append(v); });
  }
  return c.dict;
}

// A row's fields but its info, which info_columns() spreads over columns of their own.
constexpr auto row_fields_but_info = [](auto& r, auto&& f) {
  row_fields(r, [&](const char* name, auto& v) {
    if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::vector<kprof::InfoStat>>)
      f(name, v);
  });
};

nb::dict records_columns(const kprof::Results& r) { return columns(r.records(), record_fields); }
nb::dict samples_columns(const kprof::Results& r) { return columns(r.samples(), sample_fields); }
nb::dict rows_columns(const kprof::Results& r) { return columns(r.rows(), row_fields_but_info); }

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
  return columns(r.config_info(), config_fields);
}
nb::dict runs_columns(const kprof::Results& r) { return columns(r.run_info(), run_fields); }
nb::dict info_values_columns(const kprof::Results& r) { return columns(r.info(), info_fields); }

template <typename T>
constexpr bool is_optional = false;
template <typename T>
constexpr bool is_optional<std::optional<T>> = true;

// A field from Python, as to_py() gives it: None is NaN for a float, unset for an optional.
template <typename T>
void from_py(nb::handle v, T& field) {
  if constexpr (std::is_same_v<T, double>)
    field = v.is_none() ? std::numeric_limits<double>::quiet_NaN() : nb::cast<double>(v);
  else if constexpr (is_optional<T>)
    field = v.is_none() ? T{} : T{nb::cast<typename T::value_type>(v)};
  else
    field = nb::cast<T>(v);
}

// The inverse of columns(): items from {"field": [..], ...}; None gives no items. A field the
// table lacks keeps its default, as a file written before the field existed reads.
template <typename Item, typename Fields>
std::vector<Item> from_columns(const nb::object& table, Fields fields) {
  std::vector<Item> items;
  if (table.is_none()) return items;
  const auto d = nb::cast<nb::dict>(table);
  std::vector<std::optional<nb::list>> lists;
  std::size_t n = 0;
  const Item blank{};
  fields(blank, [&](const char* name, const auto&) {
    if (!d.contains(name)) {
      lists.emplace_back();
      return;
    }
    lists.emplace_back(nb::cast<nb::list>(d[name]));
    n = nb::len(*lists.back());
  });
  for (std::size_t i = 0; i < n; ++i) {
    Item item;
    std::size_t k = 0;
    fields(item, [&](const char*, auto& field) {
      if (const auto& list = lists[k++]) from_py((*list)[i], field);
    });
    items.push_back(std::move(item));
  }
  return items;
}

// The conditions tables from columns as configs_columns(), runs_columns() and
// info_values_columns() give them (any may be None); for tests and offline re-analysis.
struct Conditions {
  std::vector<kprof::ConfigInfo> configs;
  std::vector<kprof::RunInfo> runs;
  std::vector<kprof::InfoValue> info;
};

Conditions conditions_from_columns(const nb::object& configs, const nb::object& runs,
                                   const nb::object& info) {
  return {from_columns<kprof::ConfigInfo>(configs, config_fields),
          from_columns<kprof::RunInfo>(runs, run_fields),
          from_columns<kprof::InfoValue>(info, info_fields)};
}

// Records from the columns of records_columns(); for tests and offline re-analysis.
std::vector<kprof::Record> records_from_columns(const nb::dict& d) {
  return from_columns<kprof::Record>(d, record_fields);
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

nb::dict session_dict(const kprof::SessionInfo& s) {
  nb::dict d;
  session_fields(s, [&](const char* name, const auto& v) { d[name] = to_py(v); });
  return d;
}

kprof::SessionInfo session_from_dict(const nb::dict& d, kprof::SessionInfo s) {
  session_fields(s, [&](const char* name, auto& field) {
    if (d.contains(name)) field = nb::cast<std::decay_t<decltype(field)>>(d[name]);
  });
  return s;
}

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

namespace {

// _core._aggregate: the core's aggregation of made-up or saved records, without a GPU.
void bind_aggregate(nb::module_& m) {
  m.def(
      "describe_options",
      [](const kprof::Options& options) {
        kprof::SessionInfo s;
        kprof::describe_options(s, options);
        return session_dict(s);
      },
      nb::arg("options"),
      "A session (as Results.session) whose option fields (replay_mode, cache_control, "
      "clock_control, runs, metrics, thermal_mode, throttle_threshold, the stopping rule) say "
      "`options`, written by the core (kprof::describe_options); the other fields are defaults.");
  m.def(
      "_aggregate",
      [](const nb::dict& session, const std::vector<std::string>& names, const nb::list& points,
         const nb::dict& records, const kprof::Options& options, const nb::object& configs,
         const nb::object& runs, const nb::object& info) {
        // A missing option field is the options' own (the core writes them).
        kprof::SessionInfo defaults;
        kprof::describe_options(defaults, options);
        kprof::SessionInfo s = session_from_dict(session, std::move(defaults));
        kprof::Sweep sweep = make_sweep(names, points);
        std::vector<kprof::Record> recs = records_from_columns(records);
        Conditions conditions = conditions_from_columns(configs, runs, info);
        PyErrorStash stash;
        StashScope scope(&stash);
        try {
          return kprof::Results::aggregate(std::move(s), std::move(sweep), std::move(recs), options,
                                           std::move(conditions.configs),
                                           std::move(conditions.runs), std::move(conditions.info));
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

// The rows, samples, records and conditions as columns and text.
void def_tables(nb::class_<kprof::Results>& results) {
  results
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
      .def(
          "normalization_note",
          [](const kprof::Results& r) { return kprof::normalization_note(r.rows()); },
          "'values relative to a' for normalized rows (kprof::normalization_note), else ''.")
      .def(
          "table_cells",
          [](const kprof::Results& r) {
            kprof::TableCells t = r.table_cells();
            nb::dict d;
            d["header"] = nb::cast(t.header);
            d["numeric"] = nb::cast(t.numeric);
            d["rows"] = nb::cast(t.rows);
            return d;
          },
          "The text table's cells: {'header': [...], 'numeric': [bool...], 'rows': [[str...]]}.")
      .def(
          "analysis_columns",
          [](const kprof::Results& r) { return columns(kprof::analyze(r), analysis_fields); },
          "What limits each region (kprof/analysis.hpp) as {column: list}, the fields of "
          "kprof::RegionAnalysis.")
      .def(
          "analysis_text",
          [](const kprof::Results& r) { return kprof::analysis_text(kprof::analyze(r)); },
          "The analysis as `kprof report --explain` prints it.")
      .def(
          "stalls_columns",
          [](const kprof::Results& r) { return columns(kprof::stall_shares(r), stall_fields); },
          "Why each region's warps waited (kprof/stalls.hpp) as {column: list}, the fields of "
          "kprof::StallShare.")
      .def(
          "stalls_text",
          [](const kprof::Results& r) { return kprof::stalls_text(kprof::stall_shares(r)); },
          "The stall shares as `kprof report --stalls` prints them.")
      .def(
          "source_columns",
          [](const kprof::Results& r) { return columns(r.source(), source_fields); },
          "set:source's sampled instructions by reason (Results::source()) as {column: list}.")
      .def(
          "instruction_columns",
          [](const kprof::Results& r) {
            return columns(kprof::instruction_shares(r), instruction_fields);
          },
          "Each region's sampled instructions with their shares (kprof/stalls.hpp) as "
          "{column: list}, the fields of kprof::InstructionShare.")
      .def(
          "source_text",
          [](const kprof::Results& r, std::size_t per_region) {
            return kprof::source_text(kprof::instruction_shares(r), per_region);
          },
          nb::arg("per_region") = 10,
          "Each region's hottest instructions as `kprof report --source` prints them.");
}

// Merged results: their parts, ranks and imbalance.
void def_parts(nb::class_<kprof::Results>& results) {
  results
      .def_prop_ro(
          "parts",
          [](const kprof::Results& r) {
            nb::list out;
            for (const kprof::ResultPart& p : r.parts()) {
              nb::dict d;
              d["first_config"] = p.first_config;
              d["configs"] = p.configs;
              d["session"] = session_dict(p.session);
              out.append(d);
            }
            return out;
          },
          "Merged results: per part, its first config, its number of configs and its session "
          "(a dict); empty for the results of one profile.")
      .def("ranks", &kprof::Results::ranks, "The ranks the results come from.")
      .def(
          "part_indices",
          [](const kprof::Results& r, const std::vector<std::size_t>& configs) {
            std::vector<std::size_t> out;
            out.reserve(configs.size());
            for (std::size_t c : configs) out.push_back(r.part_of(c));
            return out;
          },
          nb::arg("configs"), "For each config, the index in parts of the part that holds it.")
      .def("file_tag", &kprof::Results::file_tag, nb::arg("base"),
           "The name part of files for these results: base, and -rank<N> in a job of several.")
      .def(
          "imbalance_columns",
          [](const kprof::Results& r) { return columns(kprof::imbalance(r), imbalance_fields); },
          "The slowest and fastest rank per region, metric and config (kprof/merge.hpp) as "
          "{column: list}.")
      .def("parts_note", &kprof::parts_note,
           "What merged results hold: '4 ranks (0, 1, 2, 3) on 1 host (vm), GPU 0, 4 parts'; "
           "empty for the results of one profile.")
      .def("imbalance_text", &kprof::imbalance_text,
           "The imbalance as text, a line per region, metric and config.")
      .def("throttle_note", &kprof::Results::throttle_note,
           "'3 of 40 runs ran with the SM clock below 75% of the rated 1980 MHz', or ''.");
}

// JSON, CSV and the exports, and copies.
void def_files(nb::class_<kprof::Results>& results) {
  results.def("to_json", &kprof::Results::to_json)
      .def(
          "to_google_benchmark_json",
          [](const kprof::Results& r, const std::string& unit) {
            return kprof::to_google_benchmark_json(r, unit);
          },
          nb::arg("time_unit") = "ns", "Google Benchmark's JSON (include/kprof/export.hpp).")
      .def(
          "to_chrome_trace_json",
          [](const kprof::Results& r) { return kprof::to_chrome_trace_json(r); },
          "A Chrome / Perfetto trace of the kernels (include/kprof/export.hpp).")
      .def(
          "write_chrome_trace",
          [](const kprof::Results& r, const std::string& path) {
            kprof::write_chrome_trace(r, path);
          },
          nb::arg("path"))
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
}

}  // namespace

void bind_results(nb::module_& m) {
  nb::class_<kprof::Results> results(m, "Results",
                                     "What a profile returns: session, sweep, raw records, per-run "
                                     "samples and aggregated rows (kprof::Results).");
  results.def(nb::init<>())
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
      .def("empty", &kprof::Results::empty);
  def_tables(results);
  def_parts(results);
  def_files(results);
  bind_aggregate(m);
  m.attr("STALL_SHOWN_PCT") = kprof::kStallShownPct;
  m.def("source_line_texts", &kprof::source_line_texts, nb::arg("files"), nb::arg("lines"),
        "kprof::source_line_texts: source files' lines as the reports show them ('' if not).");
  // A Python list of Results arrives as a vector of copies.
  m.def(
      "merge", [](const std::vector<kprof::Results>& parts) { return kprof::merge(parts); },
      nb::arg("parts"),
      "Results of several processes as one (kprof/merge.hpp): each part's configs after the "
      "one before, each part's session kept.");
  m.def(
      "merge_shares",
      [](const std::vector<kprof::Results>& shares) { return kprof::merge_shares(shares); },
      nb::arg("shares"),
      "The shares of one sweep measured apart, merged, Geomean over the whole sweep.");
}

}  // namespace kprof::py
