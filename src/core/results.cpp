#include "kprof/results.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <tuple>

#include "core/units.hpp"

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
                    s.started_at);
  };
  return tie(a) == tie(b);
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
    return std::tie(r.config, r.run, r.annotation, r.kernel, r.kernel_index, r.metric, r.unit);
  };
  return tie(a) == tie(b) && same(a.value, b.value);
}

bool same(const Sample& a, const Sample& b) {
  auto tie = [](const Sample& s) {
    return std::tie(s.config, s.run, s.annotation, s.metric, s.unit, s.kernel, s.kernel_index);
  };
  return tie(a) == tie(b) && same(a.value, b.value);
}

bool same(const Row& a, const Row& b) {
  auto tie = [](const Row& r) {
    return std::tie(r.annotation, r.metric, r.config, r.kernel, r.kernel_index, r.num_runs,
                    r.stable, r.unit, r.normalized_against);
  };
  auto doubles = [](const Row& r) {
    return std::array{r.mean,       r.stddev,         r.min,
                      r.max,        r.median,         r.ci95_lower,
                      r.ci95_upper, r.rel_stddev_pct, r.normalization_value,
                      r.geomean};
  };
  const auto da = doubles(a), db = doubles(b);
  return tie(a) == tie(b) && std::equal(da.begin(), da.end(), db.begin(),
                                        [](double x, double y) { return same(x, y); });
}

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const T& x, const T& y) { return same(x, y); });
}

// ---- table ---------------------------------------------------------------------------------

constexpr std::size_t kKernelWidth = 40;

std::string shorten(const std::string& s, std::size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

// What a person reads for a missing value: "-" rather than "nan".
std::string number(double v) { return std::isnan(v) ? "-" : detail::format_number(v); }

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

struct TextTable {
  std::vector<std::string> header;
  std::vector<bool> right;  // right-aligned (numbers)
  std::vector<std::vector<std::string>> lines;

  void column(std::string name, bool right_aligned) {
    header.push_back(std::move(name));
    right.push_back(right_aligned);
  }

  std::string render() const {
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
      width[c] = header[c].size();
      for (const auto& line : lines) width[c] = std::max(width[c], line[c].size());
    }
    std::string out = render_line(header, width);
    for (const auto& line : lines) out += render_line(line, width);
    return out;
  }

 private:
  std::string render_line(const std::vector<std::string>& cells,
                          const std::vector<std::size_t>& width) const {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      if (c > 0) out += "  ";
      out += right[c] ? pad + cells[c] : cells[c] + pad;
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  }
};

std::string session_line(const SessionInfo& s) {
  return s.gpu + " | " + s.host + " | backend " + s.backend + " | cache " + s.cache_control +
         " | " + std::to_string(s.runs) + " runs\n";
}

// "values relative to a" (or "a, b"), empty when no row is normalized.
std::string normalization_note(const std::vector<Row>& rows) {
  std::vector<std::string> baselines;
  for (const Row& r : rows)
    if (!r.normalized_against.empty() &&
        std::find(baselines.begin(), baselines.end(), r.normalized_against) == baselines.end())
      baselines.push_back(r.normalized_against);
  if (baselines.empty()) return "";
  std::string note = "values relative to ";
  for (std::size_t i = 0; i < baselines.size(); ++i) note += (i ? ", " : "") + baselines[i];
  return note + "\n";
}

std::vector<std::string> row_cells(const Row& r, const Sweep& sweep, bool with_kernel_index) {
  std::vector<std::string> cells{r.annotation};
  for (const Value& v : sweep.point(r.config)) cells.push_back(to_string(v));
  cells.push_back(r.metric);
  cells.push_back(shorten(r.kernel, kKernelWidth));
  if (with_kernel_index) cells.push_back(std::to_string(r.kernel_index));
  // One unit per row, chosen from the mean, so every number of the row reads alike.
  const detail::DisplayUnit unit = detail::display_unit(r.mean, r.unit);
  auto scaled = [&](double v) { return number(v * unit.factor); };
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

bool operator==(const Results& a, const Results& b) {
  return same(a.session_, b.session_) && same(a.sweep_, b.sweep_) && same(a.records_, b.records_) &&
         same(a.samples_, b.samples_) && same(a.rows_, b.rows_);
}

std::string Results::table() const {
  const bool with_kernel_index =
      std::any_of(rows_.begin(), rows_.end(), [](const Row& r) { return r.kernel_index >= 0; });
  TextTable t;
  t.column("Annotation", false);
  for (const std::string& name : sweep_.names()) t.column(name, false);
  t.column("Metric", false);
  t.column("Kernel", false);
  if (with_kernel_index) t.column("KernelIndex", true);
  for (const char* name : {"Mean", "Median", "StdDev", "CI95", "RSD%", "Runs"})
    t.column(name, true);
  t.column("Unit", false);
  for (const Row& r : rows_) t.lines.push_back(row_cells(r, sweep_, with_kernel_index));
  return session_line(session_) + normalization_note(rows_) + t.render();
}

std::ostream& operator<<(std::ostream& os, const Results& r) { return os << r.table(); }

}  // namespace kprof
