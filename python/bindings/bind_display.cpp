// The core's display helpers for the Python plots and reports: the unit a value is shown in,
// numbers to 4 significant digits, and the mean and geometric mean of a panel's values. Bound
// so that a plot, an HTML report and Results::table() scale and round alike, and so that
// Python computes no statistic of its own. The analysis's headings and cells are the ones
// `kprof report --explain` prints, for the HTML report's table.
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "common.hpp"
#include "kprof/analysis.hpp"
#include "kprof/demangle.hpp"
#include "kprof/detail/result_fields.hpp"
#include "kprof/stats.hpp"
#include "kprof/sweep.hpp"
#include "kprof/units.hpp"

namespace kprof::py {
namespace {

// A value of a DataFrame's row as the field's type: a missing value (None, NaN, pandas' <NA>)
// keeps the field's default.
template <typename T>
void field_from_cell(nb::handle cell, T& field) {
  if (cell.is_none()) return;
  if constexpr (std::is_same_v<T, std::string>) {
    if (nb::isinstance<nb::str>(cell)) field = nb::cast<std::string>(cell);
  } else if constexpr (std::is_arithmetic_v<T>) {
    double v = std::nan("");
    try {
      v = nb::cast<double>(nb::float_(cell));
    } catch (const nb::python_error&) {  // pandas' NA and NaT have no float: missing
    }
    if (!std::isnan(v)) field = static_cast<T>(v);
  }
}

// A region's analysis from a row of ProfileResults.analysis(), as {field: value}.
kprof::RegionAnalysis analysis_from_row(const nb::dict& row) {
  kprof::RegionAnalysis a;
  kprof::fields::analysis_fields(a, [&](const char* name, auto& field) {
    if (row.contains(name)) field_from_cell(row[name], field);
  });
  return a;
}

}  // namespace

void bind_display(nb::module_& m) {
  m.def(
      "_display_unit",
      [](double value, const std::string& unit) {
        const kprof::DisplayUnit u = kprof::display_unit(value, unit);
        return std::make_tuple(u.factor, u.unit);
      },
      nb::arg("value"), nb::arg("unit"),
      "(factor, unit) to show `value` (in `unit`) in: 2.68e6, 'ns' -> (1e-6, 'ms'), as the "
      "results table picks it.");
  m.def(
      "_format_number",
      [](double value, int significant) {
        return std::isnan(value) ? std::string("-") : kprof::format_number(value, significant);
      },
      nb::arg("value"), nb::arg("significant") = kprof::kDisplayDigits,
      "A number as the results table prints it (4 significant digits; '-' for NaN).");
  m.def("demangle", &kprof::demangle, nb::arg("mangled"),
        "A kernel's name as kprof's tables show it: demangled, or unchanged when it is not a "
        "mangled C++ name.");
  m.def("short_unit", &kprof::short_unit, nb::arg("unit"),
        "A unit as kprof's records spell it: 'nsecond' -> 'ns', 'byte' -> 'B', 'percent' -> '%'.");
  m.def("describe_run", &kprof::describe_run, nb::arg("config"), nb::arg("configs"),
        nb::arg("params"), nb::arg("run"), nb::arg("runs"),
        "'config 2/4 (n=1024), run 3/10' (config and run from 0; runs 0: not fixed; run -1: "
        "the config alone), as every kprof message says where a run is.");
  m.def(
      "_mean", [](const std::vector<double>& v) { return kprof::mean(std::span<const double>(v)); },
      nb::arg("values"), "The core's mean (NaN when empty).");
  m.def(
      "_geomean",
      [](const std::vector<double>& v) { return kprof::geomean(std::span<const double>(v)); },
      nb::arg("values"), "The core's geometric mean (NaN when empty or any value <= 0).");
  m.def(
      "analysis_headings",
      [] {
        std::vector<std::tuple<std::string, bool>> out;
        for (const kprof::AnalysisHeading& h : kprof::analysis_headings())
          out.emplace_back(std::string(h.text), h.numeric);
        return out;
      },
      "The analysis table's columns after the region, as `kprof report --explain` heads them: "
      "[(heading, numeric)].");
  m.def(
      "analysis_cells",
      [](const nb::dict& row) { return kprof::analysis_cells(analysis_from_row(row)); },
      nb::arg("row"),
      "A region's cells under analysis_headings(), from {field: value} (the fields of "
      "kprof::RegionAnalysis, as the analysis layout names them; missing ones are unmeasured).");
}

}  // namespace kprof::py
