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
// for results kprof made. Sets of files written before these existed read with empty tables.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/aggregate.hpp"
#include "core/csv.hpp"
#include "core/results_checks.hpp"
#include "kprof/errors.hpp"
#include "kprof/layout.hpp"
#include "kprof/result_fields.hpp"
#include "kprof/results.hpp"

namespace kprof {
namespace {

using Cells = std::vector<std::string>;
using namespace fields;

// ---- cell text -----------------------------------------------------------------------------

std::string text(const std::string& s) { return s; }
std::string text(std::integral auto v) { return std::to_string(v); }
std::string text(double v) { return detail::format_double(v); }
// pandas' spelling of booleans; empty when unset.
std::string text(const std::optional<bool>& b) { return !b ? "" : *b ? "True" : "False"; }

// The session's metrics, in one cell.
constexpr char kMetricSeparator = ';';
std::string text(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : std::string(1, kMetricSeparator)) + item;
  return out;
}

// A cell that does not hold what its column needs; the reader adds where it was.
struct BadCell {
  std::string what;
};

void parse(std::string_view s, std::string& out) { out = s; }

template <std::integral I>
void parse(std::string_view s, I& out) {
  const auto v = detail::parse_int(s);
  if (!v || !std::in_range<I>(*v)) throw BadCell{"expected an integer"};
  out = static_cast<I>(*v);
}

// An empty cell is NaN too: pandas writes a missing value as nothing.
void parse(std::string_view s, double& out) {
  const auto v =
      s.empty() ? std::optional(std::numeric_limits<double>::quiet_NaN()) : detail::parse_double(s);
  if (!v) throw BadCell{"expected a number"};
  out = *v;
}

void parse(std::string_view s, std::optional<bool>& out) {
  if (s != "" && s != "True" && s != "False") throw BadCell{"expected True, False or nothing"};
  out = s.empty() ? std::nullopt : std::optional(s == "True");
}

void parse(std::string_view s, std::vector<std::string>& out) {
  out.clear();
  while (!s.empty()) {
    const auto end = std::min(s.find(kMetricSeparator), s.size());
    out.emplace_back(s.substr(0, end));
    s.remove_prefix(std::min(end + 1, s.size()));
  }
}

std::string param_text(const Value& v) {
  const auto* d = std::get_if<double>(&v);
  if (!d) return to_string(v);
  std::string s = detail::format_double(*d);
  if (s.find_first_of(".ein") == std::string::npos) s += ".0";  // 2.0, not 2
  return s;
}

Value param_value(const std::string& s) {
  if (const auto i = detail::parse_int(s)) return *i;
  if (const auto d = detail::parse_double(s)) return *d;
  return s;
}

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

// A column's cell: nsight-python's Normalized is "False" when a row is not normalized.
template <class Object, class Fields>
std::string cell_text(const Slot& slot, const Object& object, Fields fields) {
  std::string out;
  with_field(object, fields, slot.field, [&](const auto& v) {
    if constexpr (requires { text(v); }) out = text(v);
  });
  return slot.column->kind == ColumnKind::baseline && out.empty() ? "False" : out;
}

template <class Object, class Fields>
void parse_cell(const Slot& slot, Object& object, Fields fields, std::string_view cell) {
  if (slot.column->kind == ColumnKind::baseline && cell == "False") cell = "";
  with_field(object, fields, slot.field, [&](auto& v) {
    if constexpr (requires { parse(cell, v); }) parse(cell, v);
  });
}

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

auto samples_layout() {
  return make_layout<Sample>("profiled_data", ResultTable::samples_file, sample_fields);
}
auto rows_layout() { return make_layout<Row>("processed_data", ResultTable::rows, row_fields); }
auto records_layout() {
  return make_layout<Record>("records", ResultTable::records_file, record_fields);
}
auto configs_layout() {
  return make_layout<ConfigInfo>("configs", ResultTable::configs_file, config_fields);
}
auto runs_layout() { return make_layout<RunInfo>("runs", ResultTable::runs, run_fields); }
auto info_layout() { return make_layout<InfoValue>("info", ResultTable::info_file, info_fields); }

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

// The session, one field a line: <prefix>session-<tag>.csv with the header Field,Value.
constexpr const char* kSessionKind = "session";

std::string file_path(const std::string& prefix, const char* kind, const std::string& tag) {
  return prefix + kind + "-" + detail::file_name_part(tag) + ".csv";
}

template <class L>
Cells header(const L& layout, const std::vector<std::string>& params) {
  Cells names;
  for (const Slot& s : layout.before) names.emplace_back(s.column->name);
  names.insert(names.end(), params.begin(), params.end());
  for (const Slot& s : layout.after) names.emplace_back(s.column->name);
  return names;
}

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

// ---- reading -------------------------------------------------------------------------------

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw FormatError(source + ": " + what);
}

// The sweep as the files tell it: the parameter names and each config's values, which must
// agree wherever a config appears.
class SweepBuilder {
 public:
  void names(Cells names, const std::string& path) {
    if (!names_)
      names_ = std::move(names);
    else if (*names_ != names)
      fail(path, "its parameter columns differ from those of the files read before");
  }

  // The parameter values of `config` on a line (`values`, `n` cells): the first line of a
  // config gives them, every later one must repeat them. `where` names the line on a failure.
  template <class Where>
  void point(std::size_t config, const std::string* values, std::size_t n, const Where& where) {
    const auto it = points_.find(config);
    if (it == points_.end()) {
      points_.emplace(config, Cells(values, values + n));
    } else if (!std::equal(values, values + n, it->second.begin(), it->second.end())) {
      fail(where(), "config " + std::to_string(config) + " has other parameter values than before");
    }
  }

  Sweep build(const std::string& source) const {
    std::vector<std::vector<Value>> points;
    for (const auto& [config, texts] : points_) {
      if (config != points.size())
        fail(source, "config " + std::to_string(points.size()) +
                         " has no line in any file; the sweep cannot be rebuilt");
      points.emplace_back();
      for (const std::string& t : texts) points.back().push_back(param_value(t));
    }
    if (points.empty() || (points.size() == 1 && names_->empty())) return Sweep();
    try {
      return Sweep::list(*names_, std::move(points));
    } catch (const ConfigError& e) {
      fail(source, e.what());
    }
  }

 private:
  std::optional<Cells> names_;
  std::map<std::size_t, Cells> points_;
};

// Where the `after` columns start in the header `h`, or nullopt when the header does not fit
// the layout. Without extra_tail they are the last columns; with it, the first place after
// the `before` columns where they all appear in order.
template <class L>
std::optional<std::size_t> after_start(const Cells& h, const L& layout) {
  const std::size_t b = layout.before.size(), a = layout.after.size();
  if (h.size() < a + b) return std::nullopt;
  for (std::size_t i = 0; i < b; ++i)
    if (h[i] != layout.before[i].column->name) return std::nullopt;
  const auto fits_at = [&](std::size_t start) {
    for (std::size_t i = 0; i < a; ++i)
      if (h[start + i] != layout.after[i].column->name) return false;
    return true;
  };
  if (!layout.extra_tail) return fits_at(h.size() - a) ? std::optional(h.size() - a) : std::nullopt;
  for (std::size_t start = b; start + a <= h.size(); ++start)
    if (fits_at(start)) return start;
  return std::nullopt;
}

template <class T, class Fields>
void read_cells(const std::vector<Slot>& slots, Fields fields, const std::string* cells, T& item,
                SessionInfo& session) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    try {
      if (slots[i].column->source == ColumnSource::session)
        parse_cell(slots[i], session, session_fields, cells[i]);
      else
        parse_cell(slots[i], item, fields, cells[i]);
    } catch (const BadCell& e) {
      throw BadCell{"column " + std::string(slots[i].column->name) + ": " + e.what + ", found '" +
                    cells[i] + "'"};
    }
  }
}

// The columns of a file as its header places them: the layout of its generation (files written
// before some `added_later` columns existed end before them: the layout of each such generation
// is tried, newest first), where its `after` columns start, and its parameter names.
template <class T, class Fields>
struct FileColumns {
  Layout<T, Fields> layout;
  std::size_t after = 0;
  std::size_t first_param = 0;
  std::size_t params = 0;
  std::size_t width = 0;
};

template <class T, class Fields>
FileColumns<T, Fields> file_columns(const std::string& path, const Layout<T, Fields>& layout,
                                    const Cells& head) {
  FileColumns<T, Fields> file{layout};
  std::optional<std::size_t> after = after_start(head, layout);
  for (std::size_t k = 1; !after && k <= layout.added_later; ++k) {
    file.layout.after.resize(layout.after.size() - k);
    after = after_start(head, file.layout);
  }
  if (!after) {
    std::string expected;
    for (const auto& name : header(layout, {"<parameters>"})) expected += name + ",";
    expected.pop_back();
    fail(path,
         "not a kprof " + std::string(layout.kind) + " file; expected the header " + expected);
  }
  file.after = *after;
  file.first_param = layout.before.size();
  file.params = *after - file.first_param;
  file.width = head.size();
  return file;
}

template <class T, class Fields>
std::vector<T> read_table(const std::string& path, const Layout<T, Fields>& layout,
                          SessionInfo& session, SweepBuilder& sweep) {
  std::optional<FileColumns<T, Fields>> file;
  std::vector<T> items;
  const std::string text = detail::read_text_file(path);
  detail::csv::for_each_row(text, path, [&](const Cells& line) {
    if (!file) {
      file = file_columns(path, layout, line);
      sweep.names(
          Cells(line.begin() + file->first_param, line.begin() + file->first_param + file->params),
          path);
      return;
    }
    // Said only on a failure: a file of a million lines builds no million messages.
    const std::size_t number = items.size() + 1;
    const auto where = [&] { return path + ": data line " + std::to_string(number); };
    if (line.size() != file->width)
      fail(where(), "has " + std::to_string(line.size()) + " fields, the header " +
                        std::to_string(file->width));
    T& item = items.emplace_back();
    try {
      read_cells(file->layout.before, layout.fields, line.data(), item, session);
      read_cells(file->layout.after, layout.fields, line.data() + file->after, item, session);
    } catch (const BadCell& e) {
      fail(where(), e.what);
    }
    sweep.point(item.config, line.data() + file->first_param, file->params, where);
  });
  if (!file) {  // an empty file: as one with a header and no lines, unless no header fits
    file_columns(path, layout, Cells{});
  }
  return items;
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

// Merged results: <prefix>parts-<tag>.csv, a part a line (its configs and its session's fields).
constexpr const char* kPartsKind = "parts";

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

std::vector<ResultPart> read_parts(const std::string& path) {
  const auto lines = detail::csv::parse(detail::read_text_file(path), path);
  std::vector<ResultPart> parts;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const Cells& line = lines[i];
    if (line.size() != lines.front().size())
      fail(path, "data line " + std::to_string(i) + " has " + std::to_string(line.size()) +
                     " fields, the header " + std::to_string(lines.front().size()));
    ResultPart& p = parts.emplace_back();
    std::size_t k = 0;
    try {
      parse(line[k++], p.first_config);
      parse(line[k++], p.configs);
      session_fields(p.session, [&](const char* name, auto& field) {
        const auto at = std::find(lines.front().begin(), lines.front().end(), name);
        if (at != lines.front().end()) parse(line[at - lines.front().begin()], field);
      });
    } catch (const BadCell& e) {
      fail(path, "data line " + std::to_string(i) + ": " + e.what);
    }
  }
  return parts;
}

// The files rebuild the sweep from the configs that have lines: configs at the end that never
// ran (a failed sweep's) are not there, and the last parts lose them.
void clip_parts(std::vector<ResultPart>& parts, std::size_t configs) {
  while (!parts.empty() && parts.back().first_config >= configs) parts.pop_back();
  if (!parts.empty())
    parts.back().configs = std::min(parts.back().configs, configs - parts.back().first_config);
}

SessionInfo read_session(const std::string& path) {
  const auto lines = detail::csv::parse(detail::read_text_file(path), path);
  if (lines.empty() || lines.front() != Cells{"Field", "Value"})
    fail(path, "not a kprof session file; expected the header Field,Value");
  std::map<std::string, std::string, std::less<>> values;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].size() != 2) fail(path, "data line " + std::to_string(i) + " needs 2 fields");
    values[lines[i][0]] = lines[i][1];
  }
  SessionInfo session;
  session_fields(session, [&](const char* name, auto& field) {
    const auto it = values.find(name);
    if (it == values.end() && session_field_added_later(name)) return;
    if (it == values.end()) fail(path, "has no line for " + std::string(name));
    try {
      parse(it->second, field);
    } catch (const BadCell& e) {
      fail(path, name + (": " + e.what));
    }
  });
  return session;
}

// The file kind of a table, named as the JSON document names it ("samples": profiled_data).
const char* csv_kind(std::string_view table) {
  if (table == "samples") return samples_layout().kind;
  if (table == "rows") return rows_layout().kind;
  if (table == "records") return records_layout().kind;
  if (table == "configs") return configs_layout().kind;
  if (table == "runs") return runs_layout().kind;
  return info_layout().kind;
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

Results Results::read_csv(const std::string& prefix, const std::string& tag) {
  SessionInfo session = read_session(file_path(prefix, kSessionKind, tag));
  SweepBuilder sweep;
  // The session file is the session; the tables' session columns (a merged file's differ from
  // line to line) must parse, and are then left aside.
  SessionInfo lines_session = session;
  auto read = [&](const auto& layout) {
    return read_table(file_path(prefix, layout.kind, tag), layout, lines_session, sweep);
  };
  // Files added after the first sets were written: missing means an empty table.
  auto read_if_there = [&](const auto& layout) {
    return std::filesystem::exists(file_path(prefix, layout.kind, tag)) ? read(layout)
                                                                        : decltype(read(layout)){};
  };
  auto records = read(records_layout());
  auto samples = read(samples_layout());
  auto rows = read(rows_layout());
  auto configs = read_if_there(configs_layout());
  auto runs = read_if_there(runs_layout());
  auto info = read_if_there(info_layout());
  detail::add_info(rows, info);
  const std::string parts_path = file_path(prefix, kPartsKind, tag);
  auto parts =
      std::filesystem::exists(parts_path) ? read_parts(parts_path) : std::vector<ResultPart>{};
  Sweep built = sweep.build(prefix + "*-" + tag + ".csv");
  clip_parts(parts, built.size());
  Results results(std::move(session), std::move(built), std::move(records), std::move(samples),
                  std::move(rows), std::move(configs), std::move(runs), std::move(info),
                  std::move(parts));
  // A table's items are its file's data lines, in order, after the header.
  detail::check_read_results(results, prefix + "*-" + tag + ".csv",
                             [&](std::string_view table, std::string_view field, std::size_t i) {
                               return file_path(prefix, csv_kind(table), tag) + " data line " +
                                      std::to_string(i + 1) + " (" + std::string(field) + ")";
                             });
  return results;
}

}  // namespace kprof
