// kprof::compare as _core.compare, returning _core.Comparison: the rows and the only-in lists as
// columnar dicts of lists, ready for pandas. Every number is the core's.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "common.hpp"
#include "kprof/compare.hpp"
#include "kprof/stalls.hpp"

namespace kprof::py {
namespace {

// {name: value} in the config's order.
nb::dict config_dict(const std::vector<kprof::Param>& config) {
  nb::dict d;
  for (const kprof::Param& p : config) d[p.name.c_str()] = from_value(p.value);
  return d;
}

nb::dict compared_columns(const kprof::Comparison& c) {
  Columns cols;
  nb::list annotation = cols.col("annotation"), metric = cols.col("metric"),
           config = cols.col("config"), base_config = cols.col("base_config"),
           new_config = cols.col("new_config"), kernel_index = cols.col("kernel_index"),
           unit = cols.col("unit"), base_mean = cols.col("base_mean"),
           new_mean = cols.col("new_mean"), change_pct = cols.col("change_pct"),
           ci_overlap = cols.col("ci_overlap"), u = cols.col("u"), p_value = cols.col("p_value"),
           method = cols.col("method"), base_runs = cols.col("base_runs"),
           new_runs = cols.col("new_runs"), verdict = cols.col("verdict");
  for (const kprof::ComparedRow& r : c.rows) {
    annotation.append(r.annotation);
    metric.append(r.metric);
    config.append(config_dict(r.config));
    base_config.append(r.base_config);
    new_config.append(r.new_config);
    kernel_index.append(r.kernel_index);
    unit.append(r.unit);
    base_mean.append(r.base_mean);
    new_mean.append(r.new_mean);
    change_pct.append(r.change_pct);
    if (r.ci_overlap)
      ci_overlap.append(nb::bool_(*r.ci_overlap));
    else
      ci_overlap.append(nb::none());
    u.append(r.u);
    p_value.append(r.p_value);
    method.append(kprof::to_string(r.method));
    base_runs.append(r.base_runs);
    new_runs.append(r.new_runs);
    verdict.append(kprof::to_string(r.verdict));
  }
  return cols.dict;
}

nb::dict unmatched_columns(const std::vector<kprof::UnmatchedRow>& rows) {
  Columns cols;
  nb::list annotation = cols.col("annotation"), metric = cols.col("metric"),
           config = cols.col("config"), config_index = cols.col("config_index"),
           kernel_index = cols.col("kernel_index"), mean = cols.col("mean"),
           num_runs = cols.col("num_runs"), unit = cols.col("unit");
  for (const kprof::UnmatchedRow& r : rows) {
    annotation.append(r.annotation);
    metric.append(r.metric);
    config.append(config_dict(r.config));
    config_index.append(r.config_index);
    kernel_index.append(r.kernel_index);
    mean.append(r.mean);
    num_runs.append(r.num_runs);
    unit.append(r.unit);
  }
  return cols.dict;
}

// kprof::compare_source's places as {column: list}; reasons as {reason: [change per place]}.
nb::dict source_change_columns(const std::vector<kprof::SourceChange>& changes) {
  Columns cols;
  nb::list annotation = cols.col("annotation"), region = cols.col("region"),
           kernel = cols.col("kernel"), file = cols.col("file"), line = cols.col("line"),
           base_pct = cols.col("base_pct"), new_pct = cols.col("new_pct");
  nb::dict reasons;
  for (const kprof::SourceChange& c : changes)
    for (const auto& [reason, points] : c.reasons)
      if (!reasons.contains(reason.c_str())) reasons[reason.c_str()] = nb::list();
  for (const kprof::SourceChange& c : changes) {
    annotation.append(c.annotation);
    region.append(c.region);
    kernel.append(c.kernel);
    file.append(c.file);
    line.append(c.line);
    base_pct.append(c.base_pct);
    new_pct.append(c.new_pct);
    for (auto [name, list] : reasons) {
      double points = 0;
      for (const auto& [reason, change] : c.reasons)
        if (reason == nb::cast<std::string>(name)) points = change;
      nb::cast<nb::list>(list).append(points);
    }
  }
  cols.dict["reasons"] = reasons;
  return cols.dict;
}

}  // namespace

void bind_compare(nb::module_& m) {
  m.def(
      "compare_source",
      [](const kprof::Results& base, const kprof::Results& next) {
        const auto changes = kprof::compare_source(base, next);
        return nb::make_tuple(source_change_columns(changes),
                              kprof::source_comparison_text(changes));
      },
      nb::arg("base"), nb::arg("new"),
      "kprof::compare_source: ({column: list, 'reasons': {reason: [points]}}, the text of "
      "`kprof compare --source`).");
  nb::class_<kprof::Comparison>(m, "Comparison",
                                "Two results compared row by row (kprof::Comparison).")
      .def_prop_ro(
          "warnings", [](const kprof::Comparison& c) { return c.warnings; },
          "Reasons to distrust the comparison (different GPU, backend, cache control...).")
      .def_prop_ro("threshold", [](const kprof::Comparison& c) { return c.options.threshold_pct; })
      .def_prop_ro("alpha", [](const kprof::Comparison& c) { return c.options.alpha; })
      .def("any_slower", &kprof::Comparison::any_slower)
      .def("table", &kprof::Comparison::table, "The comparison as aligned text.")
      .def("rows_columns", &compared_columns,
           "Rows in both results as {column: list}: annotation, metric, config ({name: value}), "
           "base_config, new_config (sweep indices), kernel_index, unit, base_mean, new_mean, "
           "change_pct, ci_overlap (None when "
           "undefined), u, p_value, method, base_runs, new_runs, verdict.")
      .def(
          "only_in_base_columns",
          [](const kprof::Comparison& c) { return unmatched_columns(c.only_in_base); },
          "Rows of the base result only: annotation, metric, config, config_index, kernel_index, "
          "mean, num_runs, unit.")
      .def(
          "only_in_new_columns",
          [](const kprof::Comparison& c) { return unmatched_columns(c.only_in_new); },
          "Rows of the new result only, as only_in_base_columns().");

  m.def(
      "compare",
      [](const kprof::Results& base, const kprof::Results& next, double threshold, double alpha,
         const std::vector<std::string>& metrics) {
        kprof::CompareOptions o;
        o.threshold_pct = threshold;
        o.alpha = alpha;
        o.metrics = metrics;
        return kprof::compare(base, next, o);
      },
      nb::arg("base"), nb::arg("new"), nb::arg("threshold") = 2.0, nb::arg("alpha") = 0.05,
      nb::arg("metrics") = std::vector<std::string>{},
      "kprof::compare(base, new, options): raises kprof.errors.OptionError for invalid options.");
}

}  // namespace kprof::py
