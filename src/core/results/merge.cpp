// Merging the results of several processes (include/kprof/merge.hpp).
#include "kprof/merge.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "core/results/aggregate.hpp"
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

// The sessions `r` holds: its parts', or its own.
std::vector<SessionInfo> sessions_of(const Results& r) {
  if (r.parts().empty()) return {r.session()};
  std::vector<SessionInfo> out;
  for (const ResultPart& p : r.parts()) out.push_back(p.session);
  return out;
}

// "rank 0 on vm, GPU 0, started 2026-11-30T06:14:11Z"
std::string process_text(const SessionInfo& s) {
  return "rank " + std::to_string(s.rank) + " on " + (s.host.empty() ? "an unnamed host" : s.host) +
         ", GPU " + std::to_string(s.device) + ", started " +
         (s.started_at.empty() ? "at an unknown time" : s.started_at);
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// Parts measured in different ways: a duration and a counter are not comparable rank to rank.
void check_backends(std::span<const Results> parts) {
  const std::string& first = parts.front().session().backend;
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (const SessionInfo& s : sessions_of(parts[i]))
      if (s.backend != first)
        throw FormatError("merge: results 1 were measured by backend " + quoted(first) +
                          ", results " + std::to_string(i + 1) + " by " + quoted(s.backend) +
                          "; valid: results of one job, every part measured by the same backend "
                          "(the same metrics and options)");
}

// "ns", "ratio (normalized against 'memory/scale')"
std::string unit_text(const Row& row) {
  const std::string unit = row.unit.empty() ? "no unit" : quoted(row.unit);
  return row.normalized_against.empty()
             ? unit
             : unit + " (normalized against " + quoted(row.normalized_against) + ")";
}

// A metric in one unit in a part and another in the next would read as an imbalance of ranks.
void check_units(std::span<const Results> parts) {
  struct Seen {
    const Row* row;
    std::size_t part;
  };
  std::map<std::string, Seen> first;
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (const Row& row : parts[i].rows()) {
      const auto [it, fresh] = first.try_emplace(row.metric, Seen{&row, i});
      const Row& seen = *it->second.row;
      if (fresh || (seen.unit == row.unit && seen.normalized_against == row.normalized_against))
        continue;
      throw FormatError("merge: " + row.metric + " is in " + unit_text(seen) + " in results " +
                        std::to_string(it->second.part + 1) + " and in " + unit_text(row) +
                        " in results " + std::to_string(i + 1) +
                        "; valid: every metric in one unit, normalized the same way in every part "
                        "or in none");
    }
}

// The same results twice (a file given twice, or a part of merged results given again) would
// read as two ranks that measured alike. A process's profile is named by where and when it ran:
// its host, rank, device and start time; two ranks of one job started together differ in rank,
// and an array of jobs' rank 0s in host or start time.
void check_each_once(std::span<const Results> parts) {
  using Identity = std::tuple<std::string, int, int, std::string>;
  std::map<Identity, std::size_t> seen;
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (const SessionInfo& s : sessions_of(parts[i])) {
      const auto [it, fresh] =
          seen.try_emplace(Identity{s.host, s.rank, s.device, s.started_at}, i);
      if (!fresh)
        throw FormatError(
            "merge: results " + std::to_string(it->second + 1) + " and " + std::to_string(i + 1) +
            " hold the same profile (" + process_text(s) +
            "): the same results twice; valid: each process's results once (a profile is "
            "named by its host, rank, GPU and start time)");
    }
}

// `parts` as one; `each_once`: refuse a profile given twice (shares of one sweep come from
// kprof's own workers, which may share a GPU and a second).
Results merge_parts(std::span<const Results> parts, bool each_once) {
  if (parts.empty()) throw FormatError("merge: no results to merge");
  check_backends(parts);
  check_units(parts);
  if (each_once) check_each_once(parts);
  const std::vector<std::string>& names = parts.front().sweep().names();
  std::vector<std::vector<Value>> points;
  std::vector<Record> records;
  std::vector<Sample> samples;
  std::vector<Row> rows;
  std::vector<ConfigInfo> configs;
  std::vector<RunInfo> runs;
  std::vector<InfoValue> info;
  std::vector<SourceSample> source;
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
    append_shifted(source, r.source(), offset);
    append_parts(merged_parts, r, offset);
  }
  return Results(parts.front().session(), Sweep::list(names, std::move(points)), std::move(records),
                 std::move(samples), std::move(rows), std::move(configs), std::move(runs),
                 std::move(info), std::move(merged_parts), std::move(source));
}

}  // namespace

Results merge(std::span<const Results> parts) { return merge_parts(parts, true); }

Results merge_shares(std::span<const Results> shares) {
  const Results merged = merge_parts(shares, false);
  std::vector<Row> rows = merged.rows();
  detail::add_geomeans(rows);
  return Results(merged.session(), merged.sweep(), merged.records(), merged.samples(),
                 std::move(rows), merged.config_info(), merged.run_info(), merged.info(),
                 merged.parts(), merged.source());
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
