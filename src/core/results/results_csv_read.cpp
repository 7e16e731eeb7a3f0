// Reading a CSV set (results_csv.cpp describes the files): each table's lines into its items,
// the sweep rebuilt from the parameter columns, and every error naming the file and the line.
#include <algorithm>
#include <concepts>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/number_text.hpp"
#include "core/results/aggregate.hpp"
#include "core/results/csv.hpp"
#include "core/results/results_checks.hpp"
#include "core/results/results_csv_layout.hpp"
#include "kprof/detail/result_fields.hpp"
#include "kprof/errors.hpp"
#include "kprof/layout.hpp"
#include "kprof/results.hpp"

namespace kprof {
namespace {

using namespace detail::csv_set;

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

Value param_value(const std::string& s) {
  if (const auto i = detail::parse_int(s)) return *i;
  if (const auto d = detail::parse_double(s)) return *d;
  return s;
}

template <class Object, class Fields>
void parse_cell(const Slot& slot, Object& object, Fields fields, std::string_view cell) {
  if (slot.column->kind == ColumnKind::baseline && cell == "False") cell = "";
  with_field(object, fields, slot.field, [&](auto& v) {
    if constexpr (requires { parse(cell, v); }) parse(cell, v);
  });
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
