// The layout of results, in one place: every column of the tables kprof gives (the Python
// DataFrames and the CSV files), with its kind, unit and the field its value comes from, and the
// rows that say where and how a profile ran. The CSV writer and reader, the Python DataFrames,
// `kprof report` and the HTML report iterate these lists, so a new column is one line in
// src/core/results/layout.cpp.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/results.hpp"

namespace kprof {

// A table of results: a DataFrame of Python's ProfileResults, a CSV file of
// Results::write_csv, or both where they have the same columns.
enum class ResultTable {
  rows,          // ProfileResults.to_dataframe() and <prefix>processed_data-<tag>.csv
  samples,       // ProfileResults.raw_dataframe()
  samples_file,  // <prefix>profiled_data-<tag>.csv
  records,       // ProfileResults.records_dataframe()
  records_file,  // <prefix>records-<tag>.csv
  runs,          // ProfileResults.runs_dataframe() and <prefix>runs-<tag>.csv
  configs_file,  // <prefix>configs-<tag>.csv
  info_file,     // <prefix>info-<tag>.csv
  analysis,      // ProfileResults.analysis(): what limits each region (kprof/analysis.hpp)
  imbalance,     // ProfileResults.imbalance(): the slowest and fastest rank (kprof/merge.hpp)
  comparison,    // kprof.compare() and `kprof compare`: two results row by row (kprof/compare.hpp)
  stalls,        // ProfileResults.stalls(): why each region's warps waited (kprof/stalls.hpp)
  source,        // the sampled instructions by reason (Results::source()), long form
  instructions,  // ProfileResults.source_dataframe(): each sampled instruction's share
};

inline constexpr std::array<ResultTable, 14> kResultTables{
    ResultTable::rows,         ResultTable::samples,      ResultTable::samples_file,
    ResultTable::records,      ResultTable::records_file, ResultTable::runs,
    ResultTable::configs_file, ResultTable::info_file,    ResultTable::analysis,
    ResultTable::imbalance,    ResultTable::comparison,   ResultTable::stalls,
    ResultTable::source,       ResultTable::instructions};

// What a column's cells hold; a DataFrame's dtype follows it.
enum class ColumnKind {
  text,              // a string
  optional_text,     // a string; empty is missing (None in a DataFrame)
  integer,           // an integer
  optional_integer,  // an integer; negative is missing (<NA> in a DataFrame)
  real,              // a double; NaN is missing
  flag,              // true, false or missing (pandas' nullable boolean)
  baseline,          // nsight-python's Normalized: False, or the baseline annotation's name
  parameters,        // one column per parameter of the sweep, in order: the config's values
  info,              // the info collectors' columns: <name>_Avg, _Std, _Min, _Max, or <name>
};

// Where a column's value comes from.
enum class ColumnSource {
  item,        // the field `field` of the table's item (Row, Sample, Record, RunInfo...)
  session,     // the field `field` of SessionInfo: the same on every line
  run,         // the field `field` of the RunInfo of the item's config and run (missing if none)
  collectors,  // the info collectors' values of the item's config, run and annotation
};

// When a DataFrame has the column. A CSV file always has every column of its table, so that
// it reads back whatever the results hold.
enum class ColumnShown {
  always,
  normalized,  // only when the rows are normalized
  per_kernel,  // only in per-kernel mode
  files,       // only in the CSV file
};

struct ResultColumn {
  std::string_view name;  // "AvgValue"
  ColumnKind kind;
  ColumnSource source;
  // The field the value comes from, named as in the JSON document (kprof/detail/result_fields.hpp):
  // "mean" of a Row, "gpu" of the session; "config" for the parameter columns.
  std::string_view field;
  // The unit of the values: "" (none), "Unit" (the unit in the line's Unit column), or the
  // unit itself ("kHz", "s", "%", "C").
  std::string_view unit = "";
  ColumnShown shown = ColumnShown::always;
  // Files written before the column existed lack it; they read with the field's default.
  bool added_later = false;
};

// The columns of `table`, in order.
std::span<const ResultColumn> result_columns(ResultTable table);

// The names of the columns of the tables people read as DataFrames and their files (every
// table but the configs and info files), each once: the names an info collector may not take.
const std::vector<std::string>& result_column_names();

std::string_view to_string(ResultTable table);  // "rows", "samples_file"...
std::string_view to_string(ColumnKind kind);    // "text", "optional_integer"...
std::string_view to_string(ColumnSource source);
std::string_view to_string(ColumnShown shown);

// One fact of where and how results were measured.
struct ContextRow {
  std::string label;   // "GPU", "backend", "profiler seconds"
  std::string text;    // "NVIDIA H200 (device 0), rated clocks: SM 1980 MHz, memory 3201 MHz"
  bool brief = false;  // also printed above the table by `kprof report`
};

// What profiling added to a call of the function, from the session:
// "profiling added 0.21 ms per run (3.1% of 6.8 ms unprofiled)"; "" when not measured (no
// warm-up calls, or results saved before kprof measured it).
std::string overhead_note(const SessionInfo& session);

// The facts `session` records, in order: GPU, host, date, backend, cache control, clock
// control, runs, metrics measured, versions, then every other session field under its own name
// ("profiler seconds") where it differs from SessionInfo's default (what files written before
// the field existed read with), numbers to 4 significant digits. A fact the session does not
// hold (no GPU name, no versions) is left out.
std::vector<ContextRow> context_rows(const SessionInfo& session);

// Where results were measured, in one line under a plot's title or atop a page:
// "NVIDIA H200 · vm · cupti-activity · cache all · 2026-11-30", and with `with_runs` the runs
// per config when fixed (" · 20 runs"). What the session does not hold is left out.
std::string context_line(const SessionInfo& session, bool with_runs = false);

}  // namespace kprof
