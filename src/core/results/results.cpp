#include "kprof/results.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <tuple>

#include "core/text_table.hpp"
#include "kprof/errors.hpp"
#include "kprof/rank.hpp"
#include "kprof/units.hpp"

namespace kprof {
namespace {

// Exact equality: the same bits, except that every NaN equals every NaN.
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool same(const Value& a, const Value& b) {
  if (a.index() != b.index()) return false;
  if (const auto* d = std::get_if<double>(&a)) return same(*d, std::get<double>(b));
  return a == b;
}

bool same(const SessionInfo& a, const SessionInfo& b) {
  auto tie = [](const SessionInfo& s) {
    return std::tie(s.gpu, s.device, s.host, s.compute_clock_khz, s.memory_clock_khz, s.backend,
                    s.replay_mode, s.cache_control, s.clock_control, s.passes, s.runs, s.metrics,
                    s.kprof_version, s.cuda_driver_version, s.cuda_runtime_version, s.cupti_version,
                    s.started_at, s.thermal_mode, s.clock_source, s.stop_min_runs, s.stop_max_runs,
                    s.rank, s.world_size, s.local_rank, s.launcher);
  };
  return tie(a) == tie(b) && same(a.throttle_threshold, b.throttle_threshold) &&
         same(a.profiler_seconds, b.profiler_seconds) &&
         same(a.stop_rel_half_width, b.stop_rel_half_width) &&
         same(a.stop_time_budget_s, b.stop_time_budget_s) &&
         same(a.overhead_seconds_per_run, b.overhead_seconds_per_run) &&
         same(a.unprofiled_seconds_per_run, b.unprofiled_seconds_per_run);
}

bool same(const Sweep& a, const Sweep& b) {
  if (a.names() != b.names() || a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!std::equal(a.point(i).begin(), a.point(i).end(), b.point(i).begin(), b.point(i).end(),
                    [](const Value& x, const Value& y) { return same(x, y); }))
      return false;
  return true;
}

bool same(const Record& a, const Record& b) {
  auto tie = [](const Record& r) {
    return std::tie(r.config, r.run, r.annotation, r.kernel, r.kernel_index, r.metric, r.unit,
                    r.start_ns, r.end_ns, r.stream, r.kind, r.bytes);
  };
  return tie(a) == tie(b) && same(a.value, b.value);
}

bool same(const Sample& a, const Sample& b) {
  auto tie = [](const Sample& s) {
    return std::tie(s.config, s.run, s.annotation, s.metric, s.unit, s.kernel, s.kernel_index);
  };
  return tie(a) == tie(b) && same(a.value, b.value);
}

bool same(const RunInfo& a, const RunInfo& b) {
  auto tie = [](const RunInfo& r) {
    return std::tie(r.config, r.run, r.clock_event_reasons, r.throttled);
  };
  return tie(a) == tie(b) && same(a.seconds, b.seconds) && same(a.pause_s, b.pause_s) &&
         same(a.sm_clock_khz, b.sm_clock_khz) && same(a.temperature_c, b.temperature_c);
}

bool same(const ConfigInfo& a, const ConfigInfo& b) {
  return a.config == b.config && a.runs == b.runs && a.stopped_by == b.stopped_by &&
         same(a.seconds, b.seconds) && same(a.unprofiled_seconds, b.unprofiled_seconds);
}

bool same(const InfoValue& a, const InfoValue& b) {
  auto tie = [](const InfoValue& v) {
    return std::tie(v.name, v.scope, v.config, v.run, v.annotation, v.text);
  };
  return tie(a) == tie(b) && same(a.value, b.value);
}

bool same(const InfoStat& a, const InfoStat& b) {
  return a.name == b.name && a.numeric == b.numeric && a.text == b.text && same(a.value, b.value) &&
         same(a.mean, b.mean) && same(a.stddev, b.stddev) && same(a.min, b.min) &&
         same(a.max, b.max);
}

bool same(const SourceSample& a, const SourceSample& b) {
  auto tie = [](const SourceSample& x) {
    return std::tie(x.config, x.annotation, x.kernel, x.cubin, x.pc_offset, x.sass, x.file, x.line,
                    x.reason);
  };
  return tie(a) == tie(b) && same(a.samples, b.samples);
}

bool same(const Row& a, const Row& b);

bool same(const ResultPart& a, const ResultPart& b) {
  return same(a.session, b.session) && a.first_config == b.first_config && a.configs == b.configs;
}

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const T& x, const T& y) { return same(x, y); });
}

bool same(const Row& a, const Row& b) {
  auto tie = [](const Row& r) {
    return std::tie(r.annotation, r.metric, r.config, r.kernel, r.kernel_index, r.num_runs,
                    r.stable, r.unit, r.normalized_against, r.runs_done, r.stopped_by);
  };
  auto doubles = [](const Row& r) {
    return std::array{r.mean,
                      r.stddev,
                      r.min,
                      r.max,
                      r.median,
                      r.ci95_lower,
                      r.ci95_upper,
                      r.rel_stddev_pct,
                      r.normalization_value,
                      r.geomean,
                      r.measured_clock_khz,
                      r.temperature_c,
                      r.throttled_runs,
                      r.overhead_seconds};
  };
  const auto da = doubles(a), db = doubles(b);
  return tie(a) == tie(b) &&
         std::equal(da.begin(), da.end(), db.begin(),
                    [](double x, double y) { return same(x, y); }) &&
         same(a.info, b.info);
}

// ---- table ---------------------------------------------------------------------------------

constexpr std::size_t kKernelWidth = 40;

std::string shorten(const std::string& s, std::size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

using detail::cell_number;
using detail::TextTable;

std::string one_decimal(double v) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// "[lo, hi]", or "-" when there is no interval. Built by appending: GCC 12 warns falsely
// (-Wrestrict) on "[" + std::string.
std::string interval(const std::string& lo, const std::string& hi) {
  if (lo == "-" && hi == "-") return "-";
  std::string s = "[";
  s.append(lo).append(", ").append(hi).append("]");
  return s;
}

std::string runs_text(const SessionInfo& s) {
  if (std::isnan(s.stop_rel_half_width)) return std::to_string(s.runs) + " runs";
  char target[32];
  std::snprintf(target, sizeof target, "%g%%", 100 * s.stop_rel_half_width);
  return "runs until the 95% interval is within " + std::string(target) + " of the mean (" +
         std::to_string(s.stop_min_runs) + ".." + std::to_string(s.stop_max_runs) + ")";
}

std::string session_line(const SessionInfo& s) {
  return s.gpu + " | " + s.host + " | backend " + s.backend + " | cache " + s.cache_control +
         " | " + runs_text(s) + "\n";
}

// `rank`: the row's rank, or -1 when the results come from one rank and have no Rank column.
std::vector<std::string> row_cells(const Row& r, const Sweep& sweep, bool with_kernel_index,
                                   int rank) {
  std::vector<std::string> cells{r.annotation};
  if (rank >= 0) cells.push_back(std::to_string(rank));
  for (const Value& v : sweep.point(r.config)) cells.push_back(to_string(v));
  cells.push_back(r.metric);
  cells.push_back(shorten(r.kernel, kKernelWidth));
  if (with_kernel_index) cells.push_back(std::to_string(r.kernel_index));
  // One unit per row, chosen from the mean, so every number of the row reads alike.
  const kprof::DisplayUnit unit = kprof::display_unit(r.mean, r.unit);
  auto scaled = [&](double v) { return cell_number(v * unit.factor); };
  cells.push_back(scaled(r.mean));
  cells.push_back(scaled(r.median));
  cells.push_back(scaled(r.stddev));
  cells.push_back(interval(scaled(r.ci95_lower), scaled(r.ci95_upper)));
  cells.push_back(one_decimal(r.rel_stddev_pct));
  cells.push_back(std::to_string(r.num_runs));
  cells.push_back(unit.unit);
  return cells;
}

}  // namespace

Results::Results(SessionInfo session, Sweep sweep, std::vector<Record> records,
                 std::vector<Sample> samples, std::vector<Row> rows)
    : session_(std::move(session)),
      sweep_(std::move(sweep)),
      records_(std::move(records)),
      samples_(std::move(samples)),
      rows_(std::move(rows)) {}

Results::Results(SessionInfo session, Sweep sweep, std::vector<Record> records,
                 std::vector<Sample> samples, std::vector<Row> rows,
                 std::vector<ConfigInfo> configs, std::vector<RunInfo> runs,
                 std::vector<InfoValue> info, std::vector<ResultPart> parts,
                 std::vector<SourceSample> source)
    : session_(std::move(session)),
      sweep_(std::move(sweep)),
      records_(std::move(records)),
      samples_(std::move(samples)),
      rows_(std::move(rows)),
      configs_(std::move(configs)),
      runs_(std::move(runs)),
      info_(std::move(info)),
      source_(std::move(source)),
      parts_(std::move(parts)) {
  std::size_t next = 0;
  for (const ResultPart& p : parts_) {
    if (p.first_config != next)
      throw FormatError("merged results: part " + std::to_string(&p - parts_.data()) +
                        " starts at config " + std::to_string(p.first_config) + ", not " +
                        std::to_string(next) + " (parts are contiguous, in config order)");
    next += p.configs;
  }
  if (!parts_.empty() && next != sweep_.size())
    throw FormatError("merged results: the parts hold " + std::to_string(next) +
                      " configs, the sweep " + std::to_string(sweep_.size()));
}

std::size_t Results::part_of(std::size_t config) const {
  // Parts are contiguous and in order: the last one starting at or before `config`.
  const auto after =
      std::upper_bound(parts_.begin(), parts_.end(), config,
                       [](std::size_t c, const ResultPart& p) { return c < p.first_config; });
  return after == parts_.begin() ? 0 : static_cast<std::size_t>(after - parts_.begin()) - 1;
}

const SessionInfo& Results::session_of(std::size_t config) const {
  return parts_.empty() ? session_ : parts_[part_of(config)].session;
}

std::vector<int> Results::ranks() const {
  std::vector<int> out;
  for (const ResultPart& p : parts_)
    if (std::find(out.begin(), out.end(), p.session.rank) == out.end())
      out.push_back(p.session.rank);
  if (out.empty()) out.push_back(session_.rank);
  return out;
}

std::string Results::file_tag(const std::string& base) const {
  // Merged results of several ranks are nobody's own: only one rank's carry its number.
  if (ranks().size() > 1) return base;
  return rank_file_tag(base, session_.rank, session_.world_size);
}

bool operator==(const Results& a, const Results& b) {
  return same(a.session_, b.session_) && same(a.sweep_, b.sweep_) && same(a.records_, b.records_) &&
         same(a.samples_, b.samples_) && same(a.rows_, b.rows_) && same(a.configs_, b.configs_) &&
         same(a.runs_, b.runs_) && same(a.info_, b.info_) && same(a.parts_, b.parts_) &&
         same(a.source_, b.source_);
}

TableCells Results::table_cells() const {
  const bool with_kernel_index =
      std::any_of(rows_.begin(), rows_.end(), [](const Row& r) { return r.kernel_index >= 0; });
  TableCells t;
  const auto column = [&](std::string name, bool numeric) {
    t.header.push_back(std::move(name));
    t.numeric.push_back(numeric);
  };
  const bool with_rank = ranks().size() > 1;
  column("Annotation", false);
  if (with_rank) column("Rank", true);
  for (const std::string& name : sweep_.names()) column(name, false);
  column("Metric", false);
  column("Kernel", false);
  if (with_kernel_index) column("KernelIndex", true);
  for (const char* name : {"Mean", "Median", "StdDev", "CI95", "RSD%", "Runs"}) column(name, true);
  column("Unit", false);
  for (const Row& r : rows_)
    t.rows.push_back(
        row_cells(r, sweep_, with_kernel_index, with_rank ? session_of(r.config).rank : -1));
  return t;
}

std::string Results::table() const {
  const TableCells cells = table_cells();
  TextTable t;
  for (std::size_t c = 0; c < cells.header.size(); ++c) t.column(cells.header[c], cells.numeric[c]);
  t.lines = cells.rows;
  const std::string throttled = kprof::throttle_note(session_, runs_);
  const std::string note = normalization_note(rows_);
  return session_line(session_) + (throttled.empty() ? "" : "throttled: " + throttled + "\n") +
         (note.empty() ? "" : note + "\n") + t.render();
}

std::ostream& operator<<(std::ostream& os, const Results& r) { return os << r.table(); }

std::string region_name(const Results& results, const std::string& annotation, std::size_t config,
                        int kernel_index) {
  const std::string values = results.sweep().config(config).to_string();
  return annotation + (values.empty() ? "" : " (" + values + ")") +
         (kernel_index >= 0 ? " kernel " + std::to_string(kernel_index) : "");
}

std::string normalization_note(const std::vector<Row>& rows) {
  std::vector<std::string> baselines;
  for (const Row& r : rows)
    if (!r.normalized_against.empty() &&
        std::find(baselines.begin(), baselines.end(), r.normalized_against) == baselines.end())
      baselines.push_back(r.normalized_against);
  if (baselines.empty()) return "";
  std::string note = "values relative to ";
  for (std::size_t i = 0; i < baselines.size(); ++i) note += (i ? ", " : "") + baselines[i];
  return note;
}

std::string throttle_note(const SessionInfo& session, const std::vector<RunInfo>& runs) {
  const auto known = std::count_if(runs.begin(), runs.end(),
                                   [](const RunInfo& r) { return r.throttled.has_value(); });
  const auto throttled = std::count_if(
      runs.begin(), runs.end(), [](const RunInfo& r) { return r.throttled.value_or(false); });
  if (throttled == 0) return "";
  char share[32];
  std::snprintf(share, sizeof share, "%g%%", 100 * session.throttle_threshold);
  return std::to_string(throttled) + " of " + std::to_string(known) +
         " runs ran with the SM clock below " + share + " of the rated " +
         std::to_string(session.compute_clock_khz / 1000) + " MHz";
}

std::string Results::throttle_note() const { return kprof::throttle_note(session_, runs_); }

}  // namespace kprof
