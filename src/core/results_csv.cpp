// Results as nsight-python's CSV files, plus a file of raw records.
//
// Each file is a fixed list of columns around the parameter columns. A Column knows its
// header name and how to write and read its cell, so one writer and one reader serve the
// three files. Parameter values are written as text and read back by their look: integer text
// becomes int64, other number text double (doubles are always written with '.' or 'e'), the
// rest string; so a string parameter that looks like a number ("42", "1e3", "nan") reads back
// as a number. The sweep is rebuilt from the configs that have a line in some file (the configs
// file has one per config that ran): configs with no line at all cannot be recovered from CSV
// (JSON keeps them). The session is written whole to <prefix>session-<tag>.csv (Field,Value
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
#include <string_view>
#include <utility>

#include "core/aggregate.hpp"
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
// With `extra_tail`, more columns may follow `after` (processed_data's info columns): they are
// written by the caller and skipped by the reader.
template <class T>
struct Layout {
  const char* kind;
  std::vector<Column<T>> before;
  std::vector<Column<T>> after;
  bool extra_tail = false;
  // The last `added_later` columns of `after` (and any extra tail) are absent from files
  // written before they existed; such files read with those fields' defaults.
  std::size_t added_later = 0;
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
  for (auto c : {field("Unit", &Row::unit),
                 field("CI95_Lower", &Row::ci95_lower),
                 field("CI95_Upper", &Row::ci95_upper),
                 field("RelativeStdDevPct", &Row::rel_stddev_pct),
                 field("StableMeasurement", &Row::stable),
                 normalized_column(),
                 field("NormalizationValue", &Row::normalization_value),
                 field("Geomean", &Row::geomean),
                 field("Median", &Row::median),
                 field("KernelIndex", &Row::kernel_index),
                 field("Config", &Row::config),
                 session_field<Row>("Backend", &SessionInfo::backend),
                 session_field<Row>("ReplayMode", &SessionInfo::replay_mode),
                 session_field<Row>("CacheControl", &SessionInfo::cache_control),
                 session_field<Row>("Passes", &SessionInfo::passes),
                 field("RunsDone", &Row::runs_done),
                 field("StoppedBy", &Row::stopped_by),
                 field("MeasuredClock", &Row::measured_clock_khz),
                 field("Temperature", &Row::temperature_c),
                 field("ThrottledRuns", &Row::throttled_runs)})
    l.after.push_back(std::move(c));
  l.extra_tail = true;
  l.added_later = 5;  // RunsDone ... ThrottledRuns
  return l;
}

Layout<ConfigInfo> configs_layout() {
  return {"configs",
          {field("Config", &ConfigInfo::config), field("Runs", &ConfigInfo::runs),
           field("StoppedBy", &ConfigInfo::stopped_by), field("Seconds", &ConfigInfo::seconds)},
          {}};
}

Layout<RunInfo> runs_layout() {
  return {"runs",
          {field("Config", &RunInfo::config), field("Run", &RunInfo::run),
           field("Seconds", &RunInfo::seconds), field("ThermalPause", &RunInfo::pause_s),
           field("MeasuredClock", &RunInfo::sm_clock_khz),
           field("Temperature", &RunInfo::temperature_c),
           field("ClockEventReasons", &RunInfo::clock_event_reasons),
           field("Throttled", &RunInfo::throttled)},
          {}};
}

Layout<InfoValue> info_layout() {
  return {"info",
          {field("Name", &InfoValue::name), field("Scope", &InfoValue::scope),
           field("Config", &InfoValue::config), field("Run", &InfoValue::run),
           field("Annotation", &InfoValue::annotation), field("Value", &InfoValue::value),
           field("Text", &InfoValue::text)},
          {}};
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
        for (double InfoStat::* m :
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
          field("started_at", &S::started_at),
          field("thermal_mode", &S::thermal_mode),
          field("clock_source", &S::clock_source),
          field("profiler_seconds", &S::profiler_seconds),
          field("throttle_threshold", &S::throttle_threshold),
          field("stop_rel_half_width", &S::stop_rel_half_width),
          field("stop_min_runs", &S::stop_min_runs),
          field("stop_max_runs", &S::stop_max_runs),
          field("stop_time_budget_s", &S::stop_time_budget_s)};
}

// Session lines added after the first files were written: a file without them reads with the
// defaults.
bool session_line_added_later(const std::string& name) {
  for (const char* n :
       {"thermal_mode", "throttle_threshold", "stop_rel_half_width", "stop_min_runs",
        "stop_max_runs", "stop_time_budget_s", "clock_source", "profiler_seconds"})
    if (name == n) return true;
  return false;
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
    for (const auto& c : layout.before) cells.push_back(c.write(item, r.session()));
    for (const Value& v : r.sweep().point(item.config)) cells.push_back(param_text(v));
    for (const auto& c : layout.after) cells.push_back(c.write(item, r.session()));
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

// Where the `after` columns start in the header `h`, or nullopt when the header does not fit
// the layout. Without extra_tail they are the last columns; with it, the first place after
// the `before` columns where they all appear in order.
template <class T>
std::optional<std::size_t> after_start(const Cells& h, const Layout<T>& layout) {
  const std::size_t b = layout.before.size(), a = layout.after.size();
  if (h.size() < a + b) return std::nullopt;
  for (std::size_t i = 0; i < b; ++i)
    if (h[i] != layout.before[i].name) return std::nullopt;
  const auto fits_at = [&](std::size_t start) {
    for (std::size_t i = 0; i < a; ++i)
      if (h[start + i] != layout.after[i].name) return false;
    return true;
  };
  if (!layout.extra_tail) return fits_at(h.size() - a) ? std::optional(h.size() - a) : std::nullopt;
  for (std::size_t start = b; start + a <= h.size(); ++start)
    if (fits_at(start)) return start;
  return std::nullopt;
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
  Layout<T> earlier = layout;  // the layout of files written before `added_later` columns
  earlier.after.resize(layout.after.size() - layout.added_later);
  earlier.extra_tail = false;
  std::optional<std::size_t> now, before;
  if (!lines.empty()) {
    now = after_start(lines.front(), layout);
    if (!now && layout.added_later > 0) before = after_start(lines.front(), earlier);
  }
  const auto& after_columns = before ? earlier.after : layout.after;
  const std::optional<std::size_t> after = now ? now : before;
  if (!after) {
    std::string expected;
    for (const auto& name : header(layout, {"<parameters>"})) expected += name + ",";
    expected.pop_back();
    fail(path,
         "not a kprof " + std::string(layout.kind) + " file; expected the header " + expected);
  }
  const Cells& head = lines.front();
  const std::size_t first_param = layout.before.size();
  const std::size_t n_params = *after - first_param;
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
      read_cells(after_columns, line.data() + *after, items[i], session);
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
    if (it == values.end() && session_line_added_later(c.name)) continue;
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
  write(configs_layout(), configs_);
  write(runs_layout(), runs_);
  write(info_layout(), info_);
  return paths;
}

Results Results::read_csv(const std::string& prefix, const std::string& tag) {
  SessionInfo session = read_session(file_path(prefix, kSessionKind, tag));
  SweepBuilder sweep;
  auto read = [&](const auto& layout) {
    return read_table(file_path(prefix, layout.kind, tag), layout, session, sweep);
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
  return Results(std::move(session), sweep.build(prefix + "*-" + tag + ".csv"), std::move(records),
                 std::move(samples), std::move(rows), std::move(configs), std::move(runs),
                 std::move(info));
}

}  // namespace kprof
