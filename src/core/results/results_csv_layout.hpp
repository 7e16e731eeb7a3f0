// The files of a CSV set (results_csv.cpp writes them, results_csv_read.cpp reads them): each
// file's columns, taken from the result layout (kprof/layout.hpp), and where each file goes.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/results/csv.hpp"
#include "kprof/detail/result_fields.hpp"
#include "kprof/layout.hpp"
#include "kprof/results.hpp"

namespace kprof::detail::csv_set {

using Cells = std::vector<std::string>;
using namespace kprof::fields;

// The session's metrics, in one cell.
inline constexpr char kMetricSeparator = ';';

// ---- columns -------------------------------------------------------------------------------

// Calls `f` with the field number `index` of `object` (in the order of `fields`).
template <class Object, class Fields, class F>
void with_field(Object& object, Fields fields, std::size_t index, F&& f) {
  std::size_t k = 0;
  fields(object, [&](const char*, auto& v) {
    if (k++ == index) f(v);
  });
}

// The number of the field called `name` in `fields`.
template <class T, class Fields>
std::size_t field_index(Fields fields, std::string_view name) {
  std::size_t k = 0;
  std::optional<std::size_t> found;
  const T blank{};
  fields(blank, [&](const char* n, const auto&) {
    if (n == name) found = k;
    ++k;
  });
  if (!found) throw std::logic_error("kprof layout: no field " + std::string(name));
  return *found;
}

// A column of a file: its layout, and the field of the item or the session that holds it.
struct Slot {
  const ResultColumn* column;
  std::size_t field;
};

// A file: "<prefix><kind>-<tag>.csv", with the columns of a table of the layout before and
// after the parameter columns. A table with info collector columns (processed_data) has them
// after all the others, so that the fixed columns keep their places: they are written by the
// caller and skipped by the reader.
template <class T, class Fields>
struct Layout {
  const char* kind;
  Fields fields;
  std::vector<Slot> before;
  std::vector<Slot> after;
  bool extra_tail = false;
  // The last `added_later` columns of `after` are absent from files written before they
  // existed; such files read with those fields' defaults.
  std::size_t added_later = 0;
};

template <class T, class Fields>
Layout<T, Fields> make_layout(const char* kind, ResultTable table, Fields fields) {
  Layout<T, Fields> l{kind, fields, {}, {}};
  bool after = false;
  for (const ResultColumn& c : result_columns(table)) {
    if (c.kind == ColumnKind::parameters) {
      after = true;
    } else if (c.kind == ColumnKind::info) {
      l.extra_tail = true;
    } else {
      const bool session = c.source == ColumnSource::session;
      if (!session && c.source != ColumnSource::item)
        throw std::logic_error("kprof layout: a file cannot hold column " + std::string(c.name));
      if (l.added_later > 0 && !c.added_later)
        throw std::logic_error("kprof layout: columns added later must come last");
      (after ? l.after : l.before)
          .push_back({&c, session ? field_index<SessionInfo>(session_fields, c.field)
                                  : field_index<T>(fields, c.field)});
      l.added_later += c.added_later ? 1 : 0;
    }
  }
  return l;
}

inline auto samples_layout() {
  return make_layout<Sample>("profiled_data", ResultTable::samples_file, sample_fields);
}
inline auto rows_layout() {
  return make_layout<Row>("processed_data", ResultTable::rows, row_fields);
}
inline auto records_layout() {
  return make_layout<Record>("records", ResultTable::records_file, record_fields);
}
inline auto configs_layout() {
  return make_layout<ConfigInfo>("configs", ResultTable::configs_file, config_fields);
}
inline auto runs_layout() { return make_layout<RunInfo>("runs", ResultTable::runs, run_fields); }
inline auto info_layout() {
  return make_layout<InfoValue>("info", ResultTable::info_file, info_fields);
}

// The session, one field a line: <prefix>session-<tag>.csv with the header Field,Value.
inline constexpr const char* kSessionKind = "session";

inline std::string file_path(const std::string& prefix, const char* kind, const std::string& tag) {
  return prefix + kind + "-" + file_name_part(tag) + ".csv";
}

// Merged results: <prefix>parts-<tag>.csv, a part a line (its configs and its session's fields).
inline constexpr const char* kPartsKind = "parts";

// A file's header: its columns, with `params` in the place of the parameters.
template <class L>
Cells header(const L& layout, const std::vector<std::string>& params) {
  Cells names;
  for (const Slot& s : layout.before) names.emplace_back(s.column->name);
  names.insert(names.end(), params.begin(), params.end());
  for (const Slot& s : layout.after) names.emplace_back(s.column->name);
  return names;
}

}  // namespace kprof::detail::csv_set
