// The result layout (kprof/layout.hpp) for the Python package: the columns its DataFrames are
// built from, and the context rows of its reports.
#include <nanobind/stl/string.h>

#include <string>

#include "common.hpp"
#include "kprof/layout.hpp"

namespace kprof::py {
namespace {

nb::str str(std::string_view s) { return nb::str(s.data(), s.size()); }

// {table: [(name, kind, source, field, unit, shown), ...]}, every value a str.
nb::dict result_layout() {
  nb::dict tables;
  for (const kprof::ResultTable table : kprof::kResultTables) {
    nb::list columns;
    for (const kprof::ResultColumn& c : kprof::result_columns(table))
      columns.append(nb::make_tuple(str(c.name), str(kprof::to_string(c.kind)),
                                    str(kprof::to_string(c.source)), str(c.field), str(c.unit),
                                    str(kprof::to_string(c.shown))));
    tables[str(kprof::to_string(table))] = columns;
  }
  return tables;
}

nb::list context_rows(const nb::dict& session) {
  nb::list rows;
  for (const kprof::ContextRow& row : kprof::context_rows(session_from_dict(session)))
    rows.append(nb::make_tuple(row.label, row.text, row.brief));
  return rows;
}

}  // namespace

void bind_layout(nb::module_& m) {
  m.def("result_layout", &result_layout,
        "The columns of every table of results, in order: {table: [(name, kind, source, field, "
        "unit, shown), ...]} (kprof/layout.hpp). Kind 'parameters' stands for the parameter "
        "columns, 'info' for the info collectors' columns.");
  m.def(
      "context_line",
      [](const nb::dict& session, bool with_runs) {
        return kprof::context_line(session_from_dict(session), with_runs);
      },
      nb::arg("session"), nb::arg("with_runs") = false,
      "Where results were measured, in one line (kprof::context_line): 'NVIDIA H200 \u00b7 vm "
      "\u00b7 cupti-activity \u00b7 cache all \u00b7 2026-11-30', with_runs adds the runs per "
      "config.");
  m.def("context_rows", &context_rows, nb::arg("session"),
        "Where and how results were measured: [(label, text, brief)] for a session dict as "
        "Results.session gives it; brief rows are those `kprof report` prints.");
}

}  // namespace kprof::py
