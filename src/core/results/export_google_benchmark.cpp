#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/results/csv.hpp"
#include "kprof/errors.hpp"
#include "kprof/export.hpp"
#include "kprof/options.hpp"

namespace kprof {
namespace {

using Json = nlohmann::ordered_json;

double ns_per(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw OptionError("time_unit", "'" + std::string(unit) + "'", "'ns', 'us', 'ms' or 's'");
}

// A benchmark of the export: one annotation (and kernel, per kernel) at one config.
using Key = std::tuple<std::string, std::size_t, int>;  // annotation, config, kernel index

std::string benchmark_name(const Results& results, const Key& key) {
  const auto& [annotation, config, kernel] = key;
  std::string name = annotation;
  const auto& names = results.sweep().names();
  const auto& point = results.sweep().point(config);
  for (std::size_t i = 0; i < names.size(); ++i) name += "/" + names[i] + ":" + to_string(point[i]);
  if (kernel >= 0) name += "/kernel:" + std::to_string(kernel);
  return name;
}

Json context(const SessionInfo& s) {
  // Google Benchmark's keys first (compare.py and dashboards read them), kprof's after.
  return Json{{"date", s.started_at},
              {"host_name", s.host},
              {"executable", "kprof"},
              {"num_cpus", 0},
              {"mhz_per_cpu", s.compute_clock_khz / 1000},
              {"cpu_scaling_enabled", false},
              {"caches", Json::array()},
              {"library_build_type", "release"},
              {"gpu", s.gpu},
              {"backend", s.backend},
              {"replay_mode", s.replay_mode},
              {"cache_control", s.cache_control},
              {"kprof_version", s.kprof_version}};
}

// One entry of "benchmarks": the duration in real_time and cpu_time, the other metrics as
// counters.
struct Entry {
  Json head;               // name, run_type, repetitions and so on
  double duration_ns = 0;  // NaN stays NaN (JSON null)
  std::map<std::string, double> counters;
  bool has_duration = false;
};

FormatError no_duration(const std::string& name) {
  return FormatError("google-benchmark export: '" + name + "' has no " +
                     std::string(kDurationMetric) +
                     " (the format's real_time); profile durations with the counters");
}

Json to_json(Entry e, double per) {
  Json j = std::move(e.head);
  j["real_time"] = e.duration_ns / per;
  j["cpu_time"] = e.duration_ns / per;
  for (auto& [name, value] : e.counters)
    if (std::isfinite(value)) j[name] = value;  // a counter a run lacks is left out
  return j;
}

// Google Benchmark's times are times: results normalized into ratios cannot be written.
void refuse_normalized(const Results& results) {
  for (const Row& r : results.rows())
    if (!r.normalized_against.empty())
      throw FormatError("google-benchmark export: the results are normalized against '" +
                        r.normalized_against +
                        "' (ratios, not times); export results profiled without "
                        "normalize_against");
}

}  // namespace

std::string to_google_benchmark_json(const Results& results, std::string_view time_unit) {
  refuse_normalized(results);
  const double per = ns_per(time_unit);
  const std::string duration(kDurationMetric);
  std::vector<Key> order;
  std::map<Key, std::map<int, Entry>> runs;                // per run
  std::map<Key, std::map<std::string, Entry>> aggregates;  // mean, median, stddev
  const auto fill = [&](Entry& e, const std::string& metric, double value) {
    if (metric == duration) {
      e.duration_ns = value;
      e.has_duration = true;
    } else {
      e.counters[metric] = value;
    }
  };
  for (const Sample& s : results.samples()) {
    const Key key{s.annotation, s.config, s.kernel_index};
    if (!runs.contains(key)) order.push_back(key);
    fill(runs[key][s.run], s.metric, s.value);
  }
  for (const Row& r : results.rows()) {
    const Key key{r.annotation, r.config, r.kernel_index};
    for (const auto& [name, value] :
         {std::pair{"mean", r.mean}, {"median", r.median}, {"stddev", r.stddev}})
      fill(aggregates[key][name], r.metric, value);
  }
  // A family per annotation (and kernel), an instance per config, as Google Benchmark numbers
  // a benchmark function and its argument sets.
  std::map<std::pair<std::string, int>, std::pair<std::size_t, std::size_t>> families;
  Json benchmarks = Json::array();
  for (const Key& key : order) {
    auto [it, added] =
        families.try_emplace({std::get<0>(key), std::get<2>(key)}, families.size(), 0);
    const std::size_t family = it->second.first;
    const std::size_t instance = added ? 0 : ++it->second.second;
    const std::string name = benchmark_name(results, key);
    // A failed run (NaN, annotate(ignore_failures=True)) is no repetition: the format has no
    // missing time, and the aggregates leave it out too.
    std::size_t valid = 0;
    for (const auto& [run, entry] : runs[key]) {
      if (!entry.has_duration) throw no_duration(name);
      if (std::isfinite(entry.duration_ns)) ++valid;
    }
    int index = 0;
    for (auto& [run, entry] : runs[key]) {
      if (!std::isfinite(entry.duration_ns)) continue;
      entry.head = Json{{"name", name},
                        {"family_index", family},
                        {"per_family_instance_index", instance},
                        {"run_name", name},
                        {"run_type", "iteration"},
                        {"repetitions", valid},
                        {"repetition_index", index++},
                        {"threads", 1},
                        {"iterations", 1},
                        {"time_unit", time_unit}};
      benchmarks.push_back(to_json(std::move(entry), per));
    }
    for (const char* aggregate : {"mean", "median", "stddev"}) {
      Entry entry = aggregates[key][aggregate];
      if (!entry.has_duration) throw no_duration(name);
      if (!std::isfinite(entry.duration_ns)) continue;  // no run of the config is valid
      entry.head = Json{{"name", name + "_" + aggregate},
                        {"family_index", family},
                        {"per_family_instance_index", instance},
                        {"run_name", name},
                        {"run_type", "aggregate"},
                        {"repetitions", valid},
                        {"threads", 1},
                        {"aggregate_name", aggregate},
                        {"aggregate_unit", "time"},
                        {"iterations", valid},
                        {"time_unit", time_unit}};
      benchmarks.push_back(to_json(std::move(entry), per));
    }
  }
  return Json{{"context", context(results.session())}, {"benchmarks", benchmarks}}.dump(2) + "\n";
}

void write_google_benchmark_json(const Results& results, const std::string& path,
                                 std::string_view time_unit) {
  detail::write_text_file_atomic(path, to_google_benchmark_json(results, time_unit));
}

}  // namespace kprof
