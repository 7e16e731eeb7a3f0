// Results as nsight-python's CSV files, plus a file of raw records.
//
// Each file is a table of the result layout (kprof/layout.hpp): a fixed list of columns around
// the parameter columns, each naming the field of the item or the session it holds, so one
// writer and one reader serve every file. Parameter values are written as text and read back by
// their look: integer text becomes int64, other number text double (doubles are always written with
// '.' or 'e'), the rest string; so a string parameter that looks like a number ("42", "1e3", "nan")
// reads back as a number. The sweep is rebuilt from the configs that have a line in some file (the
// configs file has one per config that ran): configs with no line at all cannot be recovered from
// CSV (JSON keeps them). The session is written whole to <prefix>session-<tag>.csv (Field,Value
// lines). As in nsight-python, Normalized is "False" when a row is not normalized, so a baseline
// annotation named "False" reads back as not normalized.
//
// The raw conditions go to <prefix>configs-<tag>.csv (how each config stopped),
// <prefix>runs-<tag>.csv (per run: time, thermal pause, SM clock, temperature, clock event
// reasons) and <prefix>info-<tag>.csv (every info collector value). processed_data ends with the
// info collector columns (<name>_Avg... or <name>) for readers of the file; read_csv rebuilds
// them from the info file with the rule aggregate() uses (add_info), so they round-trip exactly
#include <algorithm>
#include <cmath>
#include <concepts>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/number_text.hpp"
#include "core/results/csv.hpp"
#include "core/results/results_csv_layout.hpp"
#include "kprof/detail/result_fields.hpp"
#include "kprof/layout.hpp"
#include "kprof/results.hpp"

namespace kprof {
namespace {

using namespace detail::csv_set;

// ---- cell text -----------------------------------------------------------------------------

std::string text(const std::string& s) { return s; }
std::string text(std::integral auto v) { return std::to_string(v); }
std::string text(double v) { return detail::format_double(v); }
// pandas' spelling of booleans; empty when unset.
std::string text(const std::optional<bool>& b) { return !b ? "" : *b ? "True" : "False"; }
std::string text(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : std::string(1, kMetricSeparator)) + item;
  return out;
}

std::string param_text(const Value& v) {
  const auto* d = std::get_if<double>(&v);
  if (!d) return to_string(v);
  std::string s = detail::format_double(*d);
  if (s.find_first_of(".ein") == std::string::npos) s += ".0";  // 2.0, not 2
  return s;
}

// A column's cell: nsight-python's Normalized is "False" when a row is not normalized.
template <class Object, class Fields>
std::string cell_text(const Slot& slot, const Object& object, Fields fields) {
  std::string out;
  with_field(object, fields, slot.field, [&](const auto& v) {
    if constexpr (requires { text(v); }) out = text(v);
  });
  return slot.column->kind == ColumnKind::baseline && out.empty() ? "False" : out;
}

// processed_data's info columns, in order of first appearance: <name>_Avg, _Std, _Min, _Max
// for numbers, <name> for one value.
struct InfoColumns {
  std::vector<std::pair<std::string, bool>> collectors;  // name, numeric

  explicit InfoColumns(const std::vector<Row>& rows) {
    for (const Row& r : rows)
      for (const InfoStat& stat : r.info)
        if (std::none_of(collectors.begin(), collectors.end(),
                         [&](const auto& c) { return c.first == stat.name; }))
          collectors.emplace_back(stat.name, stat.numeric);
  }

  Cells names() const {
    Cells out;
    for (const auto& [name, numeric] : collectors) {
      if (!numeric) {
        out.push_back(name);
        continue;
      }
      for (const char* suffix : {"_Avg", "_Std", "_Min", "_Max"}) out.push_back(name + suffix);
    }
    return out;
  }

  void cells(const Row& row, Cells& out) const {
    for (const auto& [name, numeric] : collectors) {
      const auto it = std::find_if(row.info.begin(), row.info.end(),
                                   [&](const InfoStat& s) { return s.name == name; });
      if (numeric) {
        for (double InfoStat::*m :
             {&InfoStat::mean, &InfoStat::stddev, &InfoStat::min, &InfoStat::max})
          out.push_back(text(it == row.info.end() ? std::nan("") : (*it).*m));
      } else if (it == row.info.end() || (it->text.empty() && std::isnan(it->value))) {
        out.emplace_back();
      } else {
        out.push_back(it->text.empty() ? text(it->value) : it->text);
      }
    }
  }
};

template <class T, class Fields>
void append_cells(const std::vector<Slot>& slots, const T& item, Fields fields,
                  const SessionInfo& session, Cells& out) {
  for (const Slot& s : slots)
    out.push_back(s.column->source == ColumnSource::session ? cell_text(s, session, session_fields)
                                                            : cell_text(s, item, fields));
}

// ---- writing -------------------------------------------------------------------------------

template <class T, class Fields>
std::string render(const Layout<T, Fields>& layout, const std::vector<T>& items, const Results& r) {
  std::string out;
  std::optional<InfoColumns> info;
  if constexpr (std::is_same_v<T, Row>) info.emplace(items);
  Cells head = header(layout, r.sweep().names());
  if (info) {
    const Cells names = info->names();
    head.insert(head.end(), names.begin(), names.end());
  }
  detail::csv::append_row(out, head);
  for (const T& item : items) {
    Cells cells;
    const SessionInfo& session = r.session_of(item.config);
    append_cells(layout.before, item, layout.fields, session, cells);
    for (const Value& v : r.sweep().point(item.config)) cells.push_back(param_text(v));
    append_cells(layout.after, item, layout.fields, session, cells);
    if constexpr (std::is_same_v<T, Row>) info->cells(item, cells);
    detail::csv::append_row(out, cells);
  }
  return out;
}

// Every session field, by its name in the JSON document.
std::string render_session(const SessionInfo& session) {
  std::string out;
  detail::csv::append_row(out, {"Field", "Value"});
  session_fields(session, [&](const char* name, const auto& v) {
    detail::csv::append_row(out, {name, text(v)});
  });
  return out;
}

std::string render_parts(const std::vector<ResultPart>& parts) {
  std::string out;
  Cells head{"FirstConfig", "Configs"};
  const SessionInfo names;
  session_fields(names, [&](const char* name, const auto&) { head.emplace_back(name); });
  detail::csv::append_row(out, head);
  for (const ResultPart& p : parts) {
    Cells cells{text(p.first_config), text(p.configs)};
    session_fields(p.session, [&](const char*, const auto& v) { cells.push_back(text(v)); });
    detail::csv::append_row(out, cells);
  }
  return out;
}

}  // namespace

std::vector<std::string> Results::csv_paths(const std::string& prefix, const std::string& tag) {
  std::vector<std::string> paths;
  for (const char* kind :
       {samples_layout().kind, rows_layout().kind, records_layout().kind, kSessionKind,
        configs_layout().kind, runs_layout().kind, info_layout().kind, kPartsKind})
    paths.push_back(file_path(prefix, kind, tag));
  return paths;
}

std::vector<std::string> Results::write_csv(const std::string& prefix,
                                            const std::string& tag) const {
  std::vector<std::string> paths;
  auto write = [&](const auto& layout, const auto& items) {
    paths.push_back(file_path(prefix, layout.kind, tag));
    detail::write_text_file_atomic(paths.back(), render(layout, items, *this));
  };
  write(samples_layout(), samples_);
  write(rows_layout(), rows_);
  write(records_layout(), records_);
  paths.push_back(file_path(prefix, kSessionKind, tag));
  detail::write_text_file_atomic(paths.back(), render_session(session_));
  write(configs_layout(), configs_);
  write(runs_layout(), runs_);
  write(info_layout(), info_);
  const std::string parts_path = file_path(prefix, kPartsKind, tag);
  if (!parts_.empty()) {
    paths.push_back(parts_path);
    detail::write_text_file_atomic(parts_path, render_parts(parts_));
  } else {
    // A set written over merged results of the same tag must not read back as merged.
    std::error_code ignored;
    std::filesystem::remove(parts_path, ignored);
  }
  return paths;
}

}  // namespace kprof
