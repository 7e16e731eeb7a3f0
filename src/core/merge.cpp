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
    append_parts(merged_parts, r, offset);
  }
  return Results(parts.front().session(), Sweep::list(names, std::move(points)), std::move(records),
                 std::move(samples), std::move(rows), std::move(configs), std::move(runs),
                 std::move(info), std::move(merged_parts));
}

Results merge_shares(std::span<const Results> shares) {
  const Results merged = merge(shares);
  std::vector<Row> rows = merged.rows();
  detail::add_geomeans(rows);
  return Results(merged.session(), merged.sweep(), merged.records(), merged.samples(),
                 std::move(rows), merged.config_info(), merged.run_info(), merged.info(),
                 merged.parts());
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

// A process of merged results: the one that measured `config`.
static void name_process(const Results& results, std::size_t config, int& rank, std::string& host,
                         int& device) {
  const SessionInfo& s = results.session_of(config);
  rank = s.rank;
  host = s.host;
  device = s.device;
}

std::vector<Imbalance> imbalance(const Results& results) {
  using Key = std::tuple<std::string, std::string, std::string, int, std::string>;
  std::map<Key, std::size_t> at;  // index into `out`
  std::vector<Imbalance> out;
  std::vector<std::vector<std::size_t>> seen;  // the parts that measured each entry
  std::vector<std::size_t> fastest_config;
  for (const Row& r : results.rows()) {
    if (!is_time(r.unit) || std::isnan(r.mean)) continue;
    std::string point;
    for (const Value& v : results.sweep().point(r.config)) point += to_string(v) + '\x1f';
    const Key key{r.annotation, r.metric, r.kernel, r.kernel_index, point};
    auto [it, fresh] = at.try_emplace(key, out.size());
    if (fresh) {
      Imbalance m;
      m.annotation = r.annotation, m.metric = r.metric, m.kernel = r.kernel;
      m.kernel_index = r.kernel_index, m.unit = r.unit, m.config = r.config;
      m.slowest = m.fastest = r.mean;
      out.push_back(std::move(m));
      seen.emplace_back();
      fastest_config.push_back(r.config);
    }
    const std::size_t i = it->second;
    const std::size_t part = results.part_of(r.config);
    if (std::find(seen[i].begin(), seen[i].end(), part) == seen[i].end()) seen[i].push_back(part);
    if (r.mean > out[i].slowest) out[i].slowest = r.mean, out[i].config = r.config;
    if (r.mean < out[i].fastest) out[i].fastest = r.mean, fastest_config[i] = r.config;
  }
  std::vector<Imbalance> kept;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (seen[i].size() < 2) continue;
    Imbalance& m = out[i];
    m.ranks = static_cast<int>(seen[i].size());
    m.ratio = m.fastest > 0 ? m.slowest / m.fastest : std::nan("");
    name_process(results, m.config, m.slowest_rank, m.slowest_host, m.slowest_device);
    name_process(results, fastest_config[i], m.fastest_rank, m.fastest_host, m.fastest_device);
    kept.push_back(std::move(m));
  }
  return kept;
}

std::string imbalance_text(const Results& results) {
  // Ranks name processes when each part has its own; an array of jobs repeats rank 0.
  std::vector<int> ranks;
  for (const ResultPart& p : results.parts()) ranks.push_back(p.session.rank);
  std::sort(ranks.begin(), ranks.end());
  const bool unique = std::adjacent_find(ranks.begin(), ranks.end()) == ranks.end();
  const auto process = [&](int rank, const std::string& host, int device) {
    const std::string r = "rank " + std::to_string(rank);
    return unique ? r : host + " GPU " + std::to_string(device) + " (" + r + ")";
  };
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
    out += where + ": " + process(m.slowest_rank, m.slowest_host, m.slowest_device) + " is " +
           format_number(m.ratio, 3) + "x slower than " +
           process(m.fastest_rank, m.fastest_host, m.fastest_device) + " (" +
           format_number(slow.value) + " " + slow.unit + " vs " +
           format_number(m.fastest * unit.factor) + " " + unit.unit + ", " +
           std::to_string(m.ranks) + " ranks)\n";
  }
  return out;
}

}  // namespace kprof
