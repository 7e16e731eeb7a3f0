#include "core/results/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/text_table.hpp"
#include "kprof/errors.hpp"
#include "kprof/layout.hpp"
#include "kprof/units.hpp"

namespace kprof {

// ---- names ----------------------------------------------------------------------------------

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::same:
      return "same";
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::lower:
      return "lower";
    case Verdict::higher:
      return "higher";
    case Verdict::not_enough_runs:
      return "not enough runs";
  }
  return "?";
}

const char* to_string(TestMethod m) {
  switch (m) {
    case TestMethod::exact:
      return "exact";
    case TestMethod::normal:
      return "normal";
    case TestMethod::none:
      return "none";
  }
  return "?";
}

void CompareOptions::validate() const {
  if (!(threshold_pct >= 0) || std::isinf(threshold_pct))
    throw OptionError("threshold", kprof::format_number(threshold_pct), "a percentage >= 0");
  if (!(alpha > 0 && alpha < 1))
    throw OptionError("alpha", kprof::format_number(alpha), "a number between 0 and 1");
  for (const std::string& m : metrics)
    if (m.empty()) throw OptionError("metric", "''", "a metric name");
}

std::size_t Comparison::count(Verdict v) const {
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [&](const ComparedRow& r) { return r.verdict == v; }));
}

// ---- matching rows ---------------------------------------------------------------------------

namespace {

// Numbers (int or double) by value, so that n=1024 matches n=1024.0; strings after numbers.
int order(const Value& a, const Value& b) {
  const auto* sa = std::get_if<std::string>(&a);
  const auto* sb = std::get_if<std::string>(&b);
  if (sa || sb) {
    if (!sa || !sb) return sa ? 1 : -1;
    return sa->compare(*sb) < 0 ? -1 : (*sa == *sb ? 0 : 1);
  }
  const auto* ia = std::get_if<std::int64_t>(&a);
  const auto* ib = std::get_if<std::int64_t>(&b);
  if (ia && ib) return *ia < *ib ? -1 : (*ia == *ib ? 0 : 1);
  const auto number = [](const Value& v) {
    const auto* i = std::get_if<std::int64_t>(&v);
    return i ? static_cast<double>(*i) : std::get<double>(v);
  };
  const double x = number(a), y = number(b);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) - std::isnan(y);  // NaN == NaN
  return x < y ? -1 : (x == y ? 0 : 1);
}

// A config as a set of named values (sorted by name), and which of the configs with these
// values it is: configs listed twice in a sweep are matched in order of appearance.
struct ConfigKey {
  std::vector<Param> params;
  int occurrence = 0;
};

int order(const std::vector<Param>& a, const std::vector<Param>& b) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i].name != b[i].name) return a[i].name < b[i].name ? -1 : 1;
    if (const int c = order(a[i].value, b[i].value)) return c;
  }
  return a.size() < b.size() ? -1 : (a.size() == b.size() ? 0 : 1);
}

bool operator<(const ConfigKey& a, const ConfigKey& b) {
  if (const int c = order(a.params, b.params)) return c < 0;
  return a.occurrence < b.occurrence;
}

std::vector<Param> params_of(const Sweep& sweep, std::size_t config) {
  std::vector<Param> params;
  for (std::size_t i = 0; i < sweep.names().size(); ++i)
    params.push_back({sweep.names()[i], sweep.point(config)[i]});
  return params;
}

std::vector<ConfigKey> config_keys(const Sweep& sweep) {
  const auto less = [](const std::vector<Param>& a, const std::vector<Param>& b) {
    return order(a, b) < 0;
  };
  std::map<std::vector<Param>, int, decltype(less)> seen(less);
  std::vector<ConfigKey> keys;
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    std::vector<Param> params = params_of(sweep, i);
    std::sort(params.begin(), params.end(),
              [](const Param& a, const Param& b) { return a.name < b.name; });
    const int occurrence = seen[params]++;
    keys.push_back({std::move(params), occurrence});
  }
  return keys;
}

struct RowKey {
  std::string annotation;
  std::string metric;
  ConfigKey config;
  int kernel_index = -1;
};

bool operator<(const RowKey& a, const RowKey& b) {
  if (a.annotation != b.annotation) return a.annotation < b.annotation;
  if (a.metric != b.metric) return a.metric < b.metric;
  if (a.kernel_index != b.kernel_index) return a.kernel_index < b.kernel_index;
  return a.config < b.config;
}

// One result as compare() sees it: its rows (of the metrics asked for), their keys, and the
// per-run values behind each row.
class Side {
 public:
  Side(const Results& results, const CompareOptions& options) : results_(results) {
    const std::vector<ConfigKey> configs = config_keys(results.sweep());
    for (const Row& r : results.rows()) {
      if (!options.metrics.empty() && std::find(options.metrics.begin(), options.metrics.end(),
                                                r.metric) == options.metrics.end())
        continue;
      rows_.push_back(&r);
      keys_.push_back({r.annotation, r.metric, configs.at(r.config), r.kernel_index});
    }
    for (const Sample& s : results.samples())
      if (!std::isnan(s.value))
        samples_[std::tuple(s.annotation, s.config, s.metric, s.kernel_index)].push_back(s.value);
  }

  const std::vector<const Row*>& rows() const { return rows_; }
  const RowKey& key(std::size_t i) const { return keys_[i]; }
  std::vector<Param> params(const Row& r) const { return params_of(results_.sweep(), r.config); }

  // The row's per-run values on the row's own scale: normalized rows hold means divided by
  // the baseline's mean, while their samples keep the measured values.
  std::vector<double> values(const Row& r, double factor = 1) const {
    const auto it = samples_.find(std::tuple(r.annotation, r.config, r.metric, r.kernel_index));
    std::vector<double> v = it == samples_.end() ? std::vector<double>{} : it->second;
    if (!r.normalized_against.empty()) factor /= r.normalization_value;
    for (double& x : v) x *= factor;
    return v;
  }

  UnmatchedRow unmatched(const Row& r) const {
    return {.annotation = r.annotation,
            .metric = r.metric,
            .config = params(r),
            .config_index = r.config,
            .kernel_index = r.kernel_index,
            .mean = r.mean,
            .num_runs = r.num_runs,
            .unit = r.unit};
  }

 private:
  const Results& results_;
  std::vector<const Row*> rows_;
  std::vector<RowKey> keys_;
  std::map<std::tuple<std::string, std::size_t, std::string, int>, std::vector<double>> samples_;
};

// ---- why a comparison may mislead -----------------------------------------------------------

struct SessionField {
  const char* what;
  std::string SessionInfo::*field;
  const char* why;
};

constexpr SessionField kSessionFields[] = {
    {"GPU", &SessionInfo::gpu, "the values come from different hardware"},
    {"backend", &SessionInfo::backend, "the durations come from different sources"},
    {"cache control", &SessionInfo::cache_control, "cold and warm caches give different durations"},
    {"clock control", &SessionInfo::clock_control,
     "locked and free clocks give different durations"},
    {"replay mode", &SessionInfo::replay_mode, "counters replayed per kernel and per range differ"},
};

void session_warnings(const SessionInfo& a, const SessionInfo& b, std::vector<std::string>& out) {
  for (const SessionField& f : kSessionFields)
    if (a.*f.field != b.*f.field)
      out.push_back(std::string("different ") + f.what + ": '" + a.*f.field + "' in BASE, '" +
                    b.*f.field + "' in NEW; " + f.why);
}

std::string normalization(const std::string& baseline) {
  return baseline.empty() ? "not normalized" : "normalized against '" + baseline + "'";
}

// Why two rows with the same key cannot be compared; empty when they can.
std::string incompatibility(const Row& base, const Row& next) {
  if (base.normalized_against != next.normalized_against)
    return normalization(base.normalized_against) + " in BASE, " +
           normalization(next.normalized_against) + " in NEW";
  if (base.unit != next.unit && !kprof::unit_factor(next.unit, base.unit))
    return "unit '" + base.unit + "' in BASE, '" + next.unit + "' in NEW";
  return "";
}

// "3 rows left out: <reason>", once per reason, in order of first appearance.
void left_out_warnings(const std::vector<std::string>& reasons, std::vector<std::string>& out) {
  std::vector<std::pair<std::string, std::size_t>> counted;
  for (const std::string& r : reasons) {
    auto it =
        std::find_if(counted.begin(), counted.end(), [&](const auto& c) { return c.first == r; });
    if (it == counted.end())
      counted.emplace_back(r, 1);
    else
      ++it->second;
  }
  for (const auto& [reason, n] : counted)
    out.push_back(std::to_string(n) + (n == 1 ? " row" : " rows") +
                  " left out, their values cannot be compared: " + reason);
}

std::optional<bool> overlap(double lo1, double hi1, double lo2, double hi2) {
  if (std::isnan(lo1) || std::isnan(hi1) || std::isnan(lo2) || std::isnan(hi2)) return {};
  return lo1 <= hi2 && lo2 <= hi1;
}

ComparedRow compare_rows(const Side& base_side, const Row& base, const Side& next_side,
                         const Row& next, const CompareOptions& options) {
  const double factor = base.unit == next.unit ? 1 : *kprof::unit_factor(next.unit, base.unit);
  const std::vector<double> x = base_side.values(base), y = next_side.values(next, factor);
  const detail::MannWhitney test = detail::mann_whitney_u(x, y);
  ComparedRow r;
  r.annotation = base.annotation;
  r.metric = base.metric;
  r.config = base_side.params(base);
  r.base_config = base.config;
  r.new_config = next.config;
  r.kernel_index = base.kernel_index;
  r.unit = base.unit;
  r.base_mean = base.mean;
  r.new_mean = next.mean * factor;
  r.change_pct = detail::change_pct(r.base_mean, r.new_mean);
  r.ci_overlap =
      overlap(base.ci95_lower, base.ci95_upper, next.ci95_lower * factor, next.ci95_upper * factor);
  r.u = test.u;
  r.p_value = test.p;
  r.method = test.method;
  r.base_runs = x.size();
  r.new_runs = y.size();
  r.verdict = detail::decide(r.change_pct, r.p_value, r.base_runs, r.new_runs,
                             detail::lower_is_better(r.unit), options);
  return r;
}

// A metric named in options.metrics must be in one of the results: a typo would otherwise
// compare nothing and pass a CI check.
void check_metrics(const Results& base, const Results& next, const CompareOptions& options) {
  std::vector<std::string> known;
  for (const Results* r : {&base, &next})
    for (const Row& row : r->rows())
      if (std::find(known.begin(), known.end(), row.metric) == known.end())
        known.push_back(row.metric);
  for (const std::string& m : options.metrics)
    if (std::find(known.begin(), known.end(), m) == known.end())
      throw OptionError("metric", "'" + m + "'",
                        known.empty() ? "none: both results are empty" : join_choices(known));
}

// "'a', 'b' and 2 more": the first few of a list, for a message of one line.
std::string few(const std::vector<std::string>& items) {
  constexpr std::size_t kNamed = 3;
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < kNamed; ++i)
    out += (i ? ", '" : "'") + items[i] + "'";
  if (items.size() > kNamed) out += " and " + std::to_string(items.size() - kNamed) + " more";
  return out.empty() ? "none" : out;
}

// The annotations, metrics or parameter names of one side's rows, in order of appearance.
template <class Get>
std::vector<std::string> distinct(const Side& side, Get get) {
  std::vector<std::string> out;
  for (const Row* r : side.rows())
    for (std::string item : get(*r))
      if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(std::move(item));
  return out;
}

// Why no row of BASE has a counterpart in NEW: the first of annotations, metrics and
// parameters that the two sides name differently.
std::string why_no_row_matches(const Side& b, const Side& n, bool filtered) {
  if (b.rows().empty() || n.rows().empty())
    return std::string(b.rows().empty() ? "BASE" : "NEW") + " has no rows" +
           (filtered ? " of the metrics asked for" : "") +
           (b.rows().empty() && n.rows().empty() ? " (nor has NEW)" : "");
  using Pick = std::vector<std::string> (*)(const Side&, const Row&);
  struct Part {
    const char* what;
    Pick pick;
  };
  const Part parts[] = {
      {"annotations",
       [](const Side&, const Row& r) { return std::vector<std::string>{r.annotation}; }},
      {"metrics", [](const Side&, const Row& r) { return std::vector<std::string>{r.metric}; }},
      {"parameters",
       [](const Side& s, const Row& r) {
         std::vector<std::string> names;
         for (const Param& p : s.params(r)) names.push_back(p.name);
         return names;
       }},
  };
  for (const Part& part : parts) {
    const auto get_b = [&](const Row& r) { return part.pick(b, r); };
    const auto get_n = [&](const Row& r) { return part.pick(n, r); };
    const std::vector<std::string> in_b = distinct(b, get_b), in_n = distinct(n, get_n);
    if (in_b != in_n)
      return std::string("BASE has ") + part.what + " " + few(in_b) + ", NEW " + few(in_n);
  }
  return "their configs (parameter values) or kernel indices differ";
}

// A comparison that compared nothing must not pass for one that found nothing slower.
[[noreturn]] void refuse_nothing_compared(const Side& b, const Side& n,
                                          const std::vector<std::string>& left_out,
                                          const CompareOptions& options) {
  if (!left_out.empty())
    throw FormatError("nothing to compare: the " + std::to_string(left_out.size()) +
                      (left_out.size() == 1 ? " row" : " rows") +
                      " found in both cannot be compared (" + left_out.front() +
                      "); valid: results whose rows have convertible units and are normalized "
                      "the same way (or not at all) in both");
  throw FormatError("nothing to compare: no row of BASE has a counterpart in NEW (" +
                    why_no_row_matches(b, n, !options.metrics.empty()) +
                    "); valid: results with rows of the same annotation, metric, config and "
                    "kernel index");
}

}  // namespace

Comparison compare(const Results& base, const Results& next, const CompareOptions& options) {
  options.validate();
  check_metrics(base, next, options);
  Comparison c;
  c.options = options;
  session_warnings(base.session(), next.session(), c.warnings);
  const Side b(base, options), n(next, options);
  std::map<RowKey, std::size_t> next_index;
  for (std::size_t i = 0; i < n.rows().size(); ++i) next_index.emplace(n.key(i), i);
  std::vector<bool> matched(n.rows().size(), false);
  std::vector<std::string> left_out;
  for (std::size_t i = 0; i < b.rows().size(); ++i) {
    const Row& base_row = *b.rows()[i];
    const auto it = next_index.find(b.key(i));
    if (it == next_index.end()) {
      c.only_in_base.push_back(b.unmatched(base_row));
      continue;
    }
    matched[it->second] = true;
    const Row& next_row = *n.rows()[it->second];
    if (std::string why = incompatibility(base_row, next_row); !why.empty())
      left_out.push_back(std::move(why));
    else
      c.rows.push_back(compare_rows(b, base_row, n, next_row, options));
  }
  if (c.rows.empty()) refuse_nothing_compared(b, n, left_out, options);
  for (std::size_t i = 0; i < n.rows().size(); ++i)
    if (!matched[i]) c.only_in_new.push_back(n.unmatched(*n.rows()[i]));
  left_out_warnings(left_out, c.warnings);
  return c;
}

// ---- the text table --------------------------------------------------------------------------

namespace {

std::string config_text(const std::vector<Param>& config) {
  std::string out;
  for (const Param& p : config)
    out += (out.empty() ? "" : ", ") + p.name + "=" + to_string(p.value);
  return out.empty() ? "-" : out;
}

std::string signed_pct(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "+inf%" : "-inf%";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.2f%%", v);
  return buf;
}

std::string yes_no(const std::optional<bool>& b) { return b ? (*b ? "yes" : "no") : "-"; }

bool any_kernel_index(const auto& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.kernel_index >= 0; });
}

// The comparison table's name of the column reading `field` (the result layout owns the names).
std::string column_name(std::string_view field) {
  for (const ResultColumn& c : result_columns(ResultTable::comparison))
    if (c.field == field) return std::string(c.name);
  return std::string(field);
}

std::string compared_table(const std::vector<ComparedRow>& rows) {
  const bool with_kernel_index = any_kernel_index(rows);
  detail::TextTable t;
  t.column(column_name("annotation"), false);
  for (const Param& p : rows.front().config) t.column(p.name, false);
  t.column(column_name("metric"), false);
  if (with_kernel_index) t.column(column_name("kernel_index"), true);
  for (const char* field :
       {"base_mean", "new_mean", "change_pct", "ci_overlap", "p_value", "method"})
    t.column(column_name(field), true);
  t.column(column_name("base_runs"), true);
  t.column(column_name("new_runs"), true);
  t.column(column_name("verdict"), false);
  t.column(column_name("unit"), false);
  for (const ComparedRow& r : rows) {
    std::vector<std::string> cells{r.annotation};
    for (const Param& p : r.config) cells.push_back(to_string(p.value));
    cells.push_back(r.metric);
    if (with_kernel_index) cells.push_back(std::to_string(r.kernel_index));
    // Both means in one unit, chosen from the base mean, so that they read alike.
    const kprof::DisplayUnit unit = kprof::display_unit(r.base_mean, r.unit);
    cells.push_back(detail::cell_number(r.base_mean * unit.factor));
    cells.push_back(detail::cell_number(r.new_mean * unit.factor));
    cells.push_back(signed_pct(r.change_pct));
    cells.push_back(yes_no(r.ci_overlap));
    cells.push_back(detail::cell_number(r.p_value, 3));
    cells.push_back(to_string(r.method));
    cells.push_back(std::to_string(r.base_runs));
    cells.push_back(std::to_string(r.new_runs));
    cells.push_back(to_string(r.verdict));
    cells.push_back(unit.unit);
    t.lines.push_back(std::move(cells));
  }
  return t.render();
}

std::string unmatched_table(const std::string& title, const std::vector<UnmatchedRow>& rows) {
  if (rows.empty()) return "";
  const bool with_kernel_index = any_kernel_index(rows);
  detail::TextTable t;
  for (const char* name : {"Annotation", "Config", "Metric"}) t.column(name, false);
  if (with_kernel_index) t.column("KernelIndex", true);
  t.column("Mean", true);
  t.column("Runs", true);
  t.column("Unit", false);
  for (const UnmatchedRow& r : rows) {
    std::vector<std::string> cells{r.annotation, config_text(r.config), r.metric};
    if (with_kernel_index) cells.push_back(std::to_string(r.kernel_index));
    const kprof::Scaled mean = kprof::scale_for_display(r.mean, r.unit);
    cells.push_back(detail::cell_number(mean.value));
    cells.push_back(std::to_string(r.num_runs));
    cells.push_back(mean.unit);
    t.lines.push_back(std::move(cells));
  }
  return "\n" + title + " (" + std::to_string(rows.size()) + "):\n" + t.render("  ");
}

// "16 compared: 1 slower, ...", the rows in one result only, and the rule that was applied.
std::string summary(const Comparison& c) {
  std::string out = std::to_string(c.rows.size()) + " compared:";
  const char* separator = " ";
  for (Verdict v : {Verdict::slower, Verdict::faster, Verdict::higher, Verdict::lower,
                    Verdict::same, Verdict::not_enough_runs}) {
    out += separator + std::to_string(c.count(v)) + " " + to_string(v);
    separator = ", ";
  }
  out += "; " + std::to_string(c.only_in_base.size()) + " only in BASE, " +
         std::to_string(c.only_in_new.size()) + " only in NEW\n";
  return out + "a change counts when p < " + kprof::format_number(c.options.alpha) +
         " (two-sided Mann-Whitney U over the runs) and |change| >= " +
         kprof::format_number(c.options.threshold_pct) + "%\n";
}

}  // namespace

std::string Comparison::table() const {
  std::string out;
  for (const std::string& w : warnings) out += "warning: " + w + "\n";
  if (!warnings.empty()) out += "\n";
  out += rows.empty() ? "no rows to compare\n" : compared_table(rows);
  out += unmatched_table("only in BASE", only_in_base);
  out += unmatched_table("only in NEW", only_in_new);
  return out + "\n" + summary(*this);
}

std::ostream& operator<<(std::ostream& os, const Comparison& c) { return os << c.table(); }

}  // namespace kprof
