// Results as nsight-python's CSV files, plus a file of raw records.
//
// Each file is a fixed list of columns around the parameter columns. A Column knows its
// header name and how to write and read its cell, so one writer and one reader serve the
// three files. Parameter values are written as text and read back by their look: integer text
// becomes int64, other number text double (doubles are always written with '.' or 'e'), the
// rest string; so a string parameter that looks like a number ("42", "1e3", "nan") reads back
// as a number. The sweep is rebuilt from the configs that have a line in some file: configs
// with no line at all cannot be recovered from CSV (JSON keeps them). The session is written
// whole to a fourth file, <prefix>session-<tag>.csv (Field,Value lines). As in nsight-python,
// Normalized is "False" when a row is not normalized, so a baseline annotation named "False" reads
// back as not normalized.
#include <algorithm>
#include <concepts>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "core/csv.hpp"
#include "kprof/errors.hpp"
#include "kprof/results.hpp"

namespace kprof {
namespace {

using Cells = std::vector<std::string>;

// ---- cell text -----------------------------------------------------------------------------

std::string text(const std::string& s) { return s; }
std::string text(std::integral auto v) { return std::to_string(v); }
std::string text(double v) { return detail::format_double(v); }
// pandas' spelling of booleans; empty when unset.
std::string text(const std::optional<bool>& b) { return !b ? "" : *b ? "True" : "False"; }

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

template <class T>
struct Column {
  std::string name;
  std::function<std::string(const T&, const SessionInfo&)> write;
  std::function<void(T&, SessionInfo&, std::string_view)> read;
};

// A column of one field of the item.
template <class T, class M>
Column<T> field(std::string name, M T::* member) {
  return {std::move(name), [member](const T& t, const SessionInfo&) { return text(t.*member); },
          [member](T& t, SessionInfo&, std::string_view s) { parse(s, t.*member); }};
}

// A column of the session, the same on every line.
template <class T, class M>
Column<T> session_field(std::string name, M SessionInfo::* member) {
  return {std::move(name), [member](const T&, const SessionInfo& s) { return text(s.*member); },
          [member](T&, SessionInfo& s, std::string_view v) { parse(v, s.*member); }};
}

template <class T>
void add_device_columns(std::vector<Column<T>>& columns) {
  columns.push_back(session_field<T>("GPU", &SessionInfo::gpu));
  columns.push_back(session_field<T>("Host", &SessionInfo::host));
  columns.push_back(session_field<T>("ComputeClock", &SessionInfo::compute_clock_khz));
  columns.push_back(session_field<T>("MemoryClock", &SessionInfo::memory_clock_khz));
}

// nsight-python's Normalized: "False", or the baseline's name.
Column<Row> normalized_column() {
  return {"Normalized",
          [](const Row& r, const SessionInfo&) {
            return r.normalized_against.empty() ? std::string("False") : r.normalized_against;
          },
          [](Row& r, SessionInfo&, std::string_view s) {
            r.normalized_against = s == "False" ? "" : std::string(s);
          }};
}

// A file: "<prefix><kind>-<tag>.csv", its columns before and after the parameter columns.
template <class T>
struct Layout {
  const char* kind;
  std::vector<Column<T>> before;
  std::vector<Column<T>> after;
};

Layout<Sample> samples_layout() {
  Layout<Sample> l{"profiled_data", {}, {}};
  l.before = {field("Annotation", &Sample::annotation), field("Value", &Sample::value),
              field("Metric", &Sample::metric), field("Kernel", &Sample::kernel)};
  add_device_columns(l.before);
  for (auto c : {field("Unit", &Sample::unit), field("KernelIndex", &Sample::kernel_index),
                 field("Run", &Sample::run), field("Config", &Sample::config)})
    l.before.push_back(std::move(c));
  return l;
}

Layout<Row> rows_layout() {
  Layout<Row> l{"processed_data", {}, {}};
  l.before = {field("Annotation", &Row::annotation), field("Metric", &Row::metric)};
  l.after = {field("AvgValue", &Row::mean),    field("StdDev", &Row::stddev),
             field("MinValue", &Row::min),     field("MaxValue", &Row::max),
             field("NumRuns", &Row::num_runs), field("Kernel", &Row::kernel)};
  add_device_columns(l.after);
  for (auto c :
       {field("Unit", &Row::unit), field("CI95_Lower", &Row::ci95_lower),
        field("CI95_Upper", &Row::ci95_upper), field("RelativeStdDevPct", &Row::rel_stddev_pct),
        field("StableMeasurement", &Row::stable), normalized_column(),
        field("NormalizationValue", &Row::normalization_value), field("Geomean", &Row::geomean),
        field("Median", &Row::median), field("KernelIndex", &Row::kernel_index),
        field("Config", &Row::config), session_field<Row>("Backend", &SessionInfo::backend),
        session_field<Row>("ReplayMode", &SessionInfo::replay_mode),
        session_field<Row>("CacheControl", &SessionInfo::cache_control),
        session_field<Row>("Passes", &SessionInfo::passes)})
    l.after.push_back(std::move(c));
  return l;
}

Layout<Record> records_layout() {
  return {"records",
          {field("Config", &Record::config), field("Run", &Record::run),
           field("Annotation", &Record::annotation), field("Kernel", &Record::kernel),
           field("KernelIndex", &Record::kernel_index), field("Metric", &Record::metric),
           field("Value", &Record::value), field("Unit", &Record::unit)},
          {}};
}

// The session, one field a line: <prefix>session-<tag>.csv with the header Field,Value.
constexpr const char* kSessionKind = "session";
constexpr char kMetricSeparator = ';';

Column<SessionInfo> metrics_column() {
  return {"metrics",
          [](const SessionInfo& s, const SessionInfo&) {
            std::string out;
            for (const auto& m : s.metrics) out += (out.empty() ? "" : ";") + m;
            return out;
          },
          [](SessionInfo& s, SessionInfo&, std::string_view v) {
            s.metrics.clear();
            while (!v.empty()) {
              const auto end = std::min(v.find(kMetricSeparator), v.size());
              s.metrics.emplace_back(v.substr(0, end));
              v.remove_prefix(std::min(end + 1, v.size()));
            }
          }};
}

std::vector<Column<SessionInfo>> session_columns() {
  using S = SessionInfo;
  return {field("gpu", &S::gpu),
          field("device", &S::device),
          field("host", &S::host),
          field("compute_clock_khz", &S::compute_clock_khz),
          field("memory_clock_khz", &S::memory_clock_khz),
          field("backend", &S::backend),
          field("replay_mode", &S::replay_mode),
          field("cache_control", &S::cache_control),
          field("clock_control", &S::clock_control),
          field("passes", &S::passes),
          field("runs", &S::runs),
          metrics_column(),
          field("kprof_version", &S::kprof_version),
          field("cuda_driver_version", &S::cuda_driver_version),
          field("cuda_runtime_version", &S::cuda_runtime_version),
          field("cupti_version", &S::cupti_version),
          field("started_at", &S::started_at)};
}

std::string file_path(const std::string& prefix, const char* kind, const std::string& tag) {
  return prefix + kind + "-" + tag + ".csv";
}

template <class T>
Cells header(const Layout<T>& layout, const std::vector<std::string>& params) {
  Cells names;
  for (const auto& c : layout.before) names.push_back(c.name);
  names.insert(names.end(), params.begin(), params.end());
  for (const auto& c : layout.after) names.push_back(c.name);
  return names;
}

// ---- writing -------------------------------------------------------------------------------

template <class T>
std::string render(const Layout<T>& layout, const std::vector<T>& items, const Results& r) {
  std::string out;
  detail::csv::append_row(out, header(layout, r.sweep().names()));
  for (const T& item : items) {
    Cells cells;
    for (const auto& c : layout.before) cells.push_back(c.write(item, r.session()));
    for (const Value& v : r.sweep().point(item.config)) cells.push_back(param_text(v));
    for (const auto& c : layout.after) cells.push_back(c.write(item, r.session()));
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

  void point(std::size_t config, Cells values, const std::string& where) {
    const auto [it, added] = points_.try_emplace(config, std::move(values));
    if (!added && it->second != values)
      fail(where, "config " + std::to_string(config) + " has other parameter values than before");
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

template <class T>
bool header_fits(const Cells& h, const Layout<T>& layout) {
  const std::size_t b = layout.before.size(), a = layout.after.size();
  if (h.size() < a + b) return false;
  for (std::size_t i = 0; i < b; ++i)
    if (h[i] != layout.before[i].name) return false;
  for (std::size_t i = 0; i < a; ++i)
    if (h[h.size() - a + i] != layout.after[i].name) return false;
  return true;
}

template <class T>
void read_cells(const std::vector<Column<T>>& columns, const std::string* cells, T& item,
                SessionInfo& session) {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    try {
      columns[i].read(item, session, cells[i]);
    } catch (const BadCell& e) {
      throw BadCell{"column " + columns[i].name + ": " + e.what + ", found '" + cells[i] + "'"};
    }
  }
}

template <class T>
std::vector<T> read_table(const std::string& path, const Layout<T>& layout, SessionInfo& session,
                          SweepBuilder& sweep) {
  const auto lines = detail::csv::parse(detail::read_text_file(path), path);
  if (lines.empty() || !header_fits(lines.front(), layout)) {
    std::string expected;
    for (const auto& name : header(layout, {"<parameters>"})) expected += name + ",";
    expected.pop_back();
    fail(path,
         "not a kprof " + std::string(layout.kind) + " file; expected the header " + expected);
  }
  const Cells& head = lines.front();
  const std::size_t first_param = layout.before.size();
  const std::size_t n_params = head.size() - layout.before.size() - layout.after.size();
  sweep.names(Cells(head.begin() + first_param, head.begin() + first_param + n_params), path);
  std::vector<T> items(lines.size() - 1);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Cells& line = lines[i + 1];
    const std::string where = path + ": data line " + std::to_string(i + 1);
    if (line.size() != head.size())
      fail(where, "has " + std::to_string(line.size()) + " fields, the header " +
                      std::to_string(head.size()));
    try {
      read_cells(layout.before, line.data(), items[i], session);
      read_cells(layout.after, line.data() + first_param + n_params, items[i], session);
    } catch (const BadCell& e) {
      fail(where, e.what);
    }
    sweep.point(items[i].config,
                Cells(line.begin() + first_param, line.begin() + first_param + n_params), where);
  }
  return items;
}

std::string render_session(const SessionInfo& session) {
  std::string out;
  detail::csv::append_row(out, {"Field", "Value"});
  for (const auto& c : session_columns())
    detail::csv::append_row(out, {c.name, c.write(session, session)});
  return out;
}

SessionInfo read_session(const std::string& path) {
  const auto lines = detail::csv::parse(detail::read_text_file(path), path);
  if (lines.empty() || lines.front() != Cells{"Field", "Value"})
    fail(path, "not a kprof session file; expected the header Field,Value");
  std::map<std::string, std::string> values;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].size() != 2) fail(path, "data line " + std::to_string(i) + " needs 2 fields");
    values[lines[i][0]] = lines[i][1];
  }
  SessionInfo session;
  for (const auto& c : session_columns()) {
    const auto it = values.find(c.name);
    if (it == values.end()) fail(path, "has no line for " + c.name);
    try {
      c.read(session, session, it->second);
    } catch (const BadCell& e) {
      fail(path, c.name + ": " + e.what);
    }
  }
  return session;
}

}  // namespace

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
  return paths;
}

Results Results::read_csv(const std::string& prefix, const std::string& tag) {
  SessionInfo session = read_session(file_path(prefix, kSessionKind, tag));
  SweepBuilder sweep;
  auto read = [&](const auto& layout) {
    return read_table(file_path(prefix, layout.kind, tag), layout, session, sweep);
  };
  auto records = read(records_layout());
  auto samples = read(samples_layout());
  auto rows = read(rows_layout());
  return Results(std::move(session), sweep.build(prefix + "*-" + tag + ".csv"), std::move(records),
                 std::move(samples), std::move(rows));
}

}  // namespace kprof
