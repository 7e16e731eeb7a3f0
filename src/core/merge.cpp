// Merging the results of several processes (include/kprof/merge.hpp).
#include "kprof/merge.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/aggregate.hpp"
#include "kprof/errors.hpp"
#include "kprof/units.hpp"

namespace kprof {
namespace {

std::string names_text(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const std::string& n : names) out += (out.size() > 1 ? ", " : "") + n;
  return out + "]";
}

template <class T>
void append_shifted(std::vector<T>& out, const std::vector<T>& items, std::size_t offset) {
  for (T item : items) {
    item.config += offset;
    out.push_back(std::move(item));
  }
}

// The parts `r` brings, its first config at `offset`: its own parts, or itself as one.
void append_parts(std::vector<ResultPart>& out, const Results& r, std::size_t offset) {
  if (r.parts().empty()) {
    out.push_back({r.session(), offset, r.sweep().size()});
    return;
  }
  for (ResultPart p : r.parts()) {
    p.first_config += offset;
    out.push_back(std::move(p));
  }
}

// Geomean over the configs of each rank: add_geomeans on each rank's rows.
void geomeans_per_rank(std::vector<Row>& rows, const std::vector<int>& row_ranks) {
  std::map<int, std::vector<std::size_t>> by_rank;
  for (std::size_t i = 0; i < rows.size(); ++i) by_rank[row_ranks[i]].push_back(i);
  for (const auto& [rank, indices] : by_rank) {
    std::vector<Row> subset;
    for (std::size_t i : indices) subset.push_back(rows[i]);
    detail::add_geomeans(subset);
    for (std::size_t k = 0; k < indices.size(); ++k) rows[indices[k]].geomean = subset[k].geomean;
  }
}

bool is_time(const std::string& unit) { return unit_factor(unit, "s").has_value(); }

}  // namespace

Results merge(std::span<const Results> parts) {
  if (parts.empty()) throw FormatError("merge: no results to merge");
  const std::vector<std::string>& names = parts.front().sweep().names();
  std::vector<std::vector<Value>> points;
  std::vector<Record> records;
  std::vector<Sample> samples;
  std::vector<Row> rows;
  std::vector<ConfigInfo> configs;
  std::vector<RunInfo> runs;
  std::vector<InfoValue> info;
  std::vector<ResultPart> merged_parts;
  std::vector<int> row_ranks;
  for (const Results& r : parts) {
    if (r.sweep().names() != names)
      throw FormatError("merge: results of different sweeps: parameters " + names_text(names) +
                        " and " + names_text(r.sweep().names()));
    const std::size_t offset = points.size();
    for (std::size_t i = 0; i < r.sweep().size(); ++i) points.push_back(r.sweep().point(i));
    append_shifted(records, r.records(), offset);
    append_shifted(samples, r.samples(), offset);
    append_shifted(rows, r.rows(), offset);
    append_shifted(configs, r.config_info(), offset);
    append_shifted(runs, r.run_info(), offset);
    append_shifted(info, r.info(), offset);
    for (const Row& row : r.rows()) row_ranks.push_back(r.session_of(row.config).rank);
    append_parts(merged_parts, r, offset);
  }
  geomeans_per_rank(rows, row_ranks);
  return Results(parts.front().session(), Sweep::list(names, std::move(points)), std::move(records),
                 std::move(samples), std::move(rows), std::move(configs), std::move(runs),
                 std::move(info), std::move(merged_parts));
}

std::string parts_note(const Results& results) {
  if (results.parts().empty()) return "";
  std::vector<std::string> hosts;
  std::vector<int> devices;
  for (const ResultPart& p : results.parts()) {
    if (std::find(hosts.begin(), hosts.end(), p.session.host) == hosts.end())
      hosts.push_back(p.session.host);
    if (std::find(devices.begin(), devices.end(), p.session.device) == devices.end())
      devices.push_back(p.session.device);
  }
  const std::vector<int> ranks = results.ranks();
  auto list = [](const auto& items, auto text) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + text(item);
    return out;
  };
  const auto number = [](int v) { return std::to_string(v); };
  const auto same = [](const std::string& v) { return v; };
  const std::size_t n = ranks.size();
  return std::to_string(n) + (n == 1 ? " rank (" : " ranks (") + list(ranks, number) + ") on " +
         std::to_string(hosts.size()) + (hosts.size() == 1 ? " host (" : " hosts (") +
         list(hosts, same) + "), " + (devices.size() == 1 ? "GPU " : "GPUs ") +
         list(devices, number) + ", " + std::to_string(results.parts().size()) + " parts";
}

std::vector<Imbalance> imbalance(const Results& results) {
  using Key = std::tuple<std::string, std::string, std::string, int, std::string>;
  std::map<Key, std::size_t> at;  // index into `out`
  std::vector<Imbalance> out;
  std::vector<std::vector<int>> seen;  // ranks per entry of `out`
  for (const Row& r : results.rows()) {
    if (!is_time(r.unit) || std::isnan(r.mean)) continue;
    std::string point;
    for (const Value& v : results.sweep().point(r.config)) point += to_string(v) + '\x1f';
    const Key key{r.annotation, r.metric, r.kernel, r.kernel_index, point};
    const int rank = results.session_of(r.config).rank;
    auto [it, fresh] = at.try_emplace(key, out.size());
    if (fresh) {
      out.push_back({r.annotation, r.metric, r.kernel, r.kernel_index, r.config, 0, rank, r.mean,
                     rank, r.mean, 1.0, r.unit});
      seen.emplace_back();
    }
    Imbalance& m = out[it->second];
    std::vector<int>& ranks = seen[it->second];
    if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) ranks.push_back(rank);
    if (r.mean > m.slowest) m.slowest_rank = rank, m.slowest = r.mean, m.config = r.config;
    if (r.mean < m.fastest) m.fastest_rank = rank, m.fastest = r.mean;
  }
  std::vector<Imbalance> kept;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (seen[i].size() < 2) continue;
    out[i].ranks = static_cast<int>(seen[i].size());
    out[i].ratio = out[i].fastest > 0 ? out[i].slowest / out[i].fastest : std::nan("");
    kept.push_back(std::move(out[i]));
  }
  return kept;
}

std::string imbalance_text(const Results& results) {
  std::string out;
  for (const Imbalance& m : imbalance(results)) {
    std::string where = m.annotation;
    const auto& names = results.sweep().names();
    const auto& point = results.sweep().point(m.config);
    for (std::size_t i = 0; i < names.size(); ++i)
      where += (i ? ", " : " [") + names[i] + "=" + to_string(point[i]) +
               (i + 1 == names.size() ? "]" : "");
    if (m.kernel_index >= 0) where += " kernel " + std::to_string(m.kernel_index);
    const Scaled slow = scale_for_display(m.slowest, m.unit);
    const DisplayUnit unit = display_unit(m.slowest, m.unit);
    out += where + ": rank " + std::to_string(m.slowest_rank) + " is " + format_number(m.ratio, 3) +
           "x slower than rank " + std::to_string(m.fastest_rank) + " (" +
           format_number(slow.value) + " " + slow.unit + " vs " +
           format_number(m.fastest * unit.factor) + " " + unit.unit + ", " +
           std::to_string(m.ranks) + " ranks)\n";
  }
  return out;
}

}  // namespace kprof
