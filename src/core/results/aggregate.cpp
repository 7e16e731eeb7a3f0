#include "core/results/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kprof/errors.hpp"
#include "kprof/stats.hpp"

namespace kprof::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Groups items by key, groups in the order of their first item, items in their order.
template <typename Items, typename KeyFn>
auto group_by(Items& items, KeyFn key) {
  using Item = std::remove_reference_t<decltype(*std::begin(items))>;
  std::map<decltype(key(*std::begin(items))), std::size_t> index;
  std::vector<std::vector<Item*>> groups;
  for (Item& item : items) {
    const auto [it, inserted] = index.try_emplace(key(item), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(&item);
  }
  return groups;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

// Position of each distinct value in the order of first appearance.
template <typename Items, typename ValueFn>
std::map<std::string, std::size_t> first_appearance(const Items& items, ValueFn value) {
  std::map<std::string, std::size_t> rank;
  for (const auto& item : items) rank.try_emplace(value(item), rank.size());
  return rank;
}

std::vector<std::string> names_in_order(const std::map<std::string, std::size_t>& rank) {
  std::vector<std::string> names(rank.size());
  for (const auto& [name, position] : rank) names[position] = name;
  return names;
}

// --- combining the kernels of a region -------------------------------------------------------

using Kernels = std::vector<const Record*>;

// The kernels that become one value: a region's, in one run, for one metric.
auto region_run_metric(const Record& r) {
  return std::tuple(r.config, r.run, r.annotation, r.metric);
}

std::vector<std::string> unique_kernel_names(const Kernels& kernels) {
  std::vector<std::string> names;
  for (const Record* k : kernels)
    if (std::find(names.begin(), names.end(), k->kernel) == names.end()) names.push_back(k->kernel);
  return names;
}

// nsight-python's words first ("More than one kernel is launched within the X annotation"), so
// that its users recognize the rule; then where, which kernels, and the options that say how.
[[noreturn]] void throw_several_kernels(const Kernels& kernels) {
  const Record& r = *kernels.front();
  // A region of copies alone: range replay measures no copy, so it is no way out there.
  if (r.kind != kKernelKind)
    throw MeasurementError(
        "More than one copy or memset is launched within the " + r.annotation + " annotation: " +
        std::to_string(kernels.size()) + " in config " + std::to_string(r.config) + ", run " +
        std::to_string(r.run) + " (" + join(unique_kernel_names(kernels), ", ") +
        "). A region that launched no kernel is measured by its copies and memsets, one value "
        "per region: pass combine_kernel_metrics=\"sum\" (or \"max\", \"min\", \"mean\", a "
        "function of two values), or per_kernel=True to keep a row per copy");
  throw MeasurementError(
      "More than one kernel is launched within the " + r.annotation +
      " annotation: " + std::to_string(kernels.size()) + " kernels in config " +
      std::to_string(r.config) + ", run " + std::to_string(r.run) + " (" +
      join(unique_kernel_names(kernels), ", ") + ") for metric '" + r.metric +
      "'. We expect one kernel per annotation: pass combine_kernel_metrics=\"sum\" (or "
      "\"max\", \"min\", \"mean\", a function of two values) to reduce them to one value, "
      "per_kernel=True to keep a row per kernel, or replay_mode=\"range\" to measure the "
      "region as one range");
}

double fold(const Kernels& kernels, const CombineFn& fn) {
  double acc = kernels.front()->value;
  for (auto it = std::next(kernels.begin()); it != kernels.end(); ++it) acc = fn(acc, (*it)->value);
  return acc;
}

double combine(const Kernels& kernels, const Options& options) {
  if (options.combine == CombineKind::none && kernels.size() > 1) throw_several_kernels(kernels);
  const bool any_nan = std::any_of(kernels.begin(), kernels.end(),
                                   [](const Record* k) { return std::isnan(k->value); });
  if (any_nan) return kNaN;
  switch (options.combine) {
    case CombineKind::none:  // one kernel
    case CombineKind::sum:
      return fold(kernels, std::plus<>());
    case CombineKind::max:
      return fold(kernels, [](double a, double b) { return std::max(a, b); });
    case CombineKind::min:
      return fold(kernels, [](double a, double b) { return std::min(a, b); });
    case CombineKind::mean:
      return fold(kernels, std::plus<>()) / static_cast<double>(kernels.size());
    case CombineKind::custom:
      if (!options.combine_fn)
        throw OptionError("combine_kernel_metrics", "custom without a function",
                          "'sum', 'max', 'min', 'mean' or a function of two values");
      return fold(kernels, options.combine_fn);
  }
  return kNaN;
}

// value_records(records), copied into `kept` only where a copy or memset must be left out:
// records of kernels alone (the usual sweep) are used as they are.
std::span<const Record> values_of(std::span<const Record> records, std::vector<Record>& kept) {
  const auto is_kernel = [](const Record& r) { return r.kind == kKernelKind; };
  if (std::all_of(records.begin(), records.end(), is_kernel)) return records;
  kept = value_records(records);
  return kept;
}

}  // namespace

std::vector<Record> value_records(std::span<const Record> records) {
  std::set<std::tuple<std::size_t, int, std::string>> with_kernels;
  for (const Record& r : records)
    if (r.kind == kKernelKind) with_kernels.emplace(r.config, r.run, r.annotation);
  std::vector<Record> out;
  for (const Record& r : records)
    if (r.kind == kKernelKind || !with_kernels.contains({r.config, r.run, r.annotation}))
      out.push_back(r);
  return out;
}

void require_one_kernel_per_region(std::span<const Record> records, const Options& options) {
  if (options.combine != CombineKind::none || options.per_kernel) return;
  std::vector<Record> kept;
  const std::span<const Record> values = values_of(records, kept);
  const auto regions = group_by(values, region_run_metric);
  for (const auto& kernels : regions)
    if (kernels.size() > 1) throw_several_kernels(kernels);
}

namespace {

// A region's Kernel: its kernels' names, or "range" where a mode measures whole regions
// (nsight-python's name: the range's counters cover the region, gaps included; the records
// keep the kernels).
std::string region_kernel_name(const Kernels& kernels, const Options& options) {
  if (traits_of(options.replay_mode).whole_region) return "range";
  return join(unique_kernel_names(kernels), "|");
}

Sample combined_sample(Kernels kernels, const Options& options) {
  std::stable_sort(kernels.begin(), kernels.end(), [](const Record* a, const Record* b) {
    return a->kernel_index < b->kernel_index;
  });
  const Record& first = *kernels.front();
  return {.config = first.config,
          .run = first.run,
          .annotation = first.annotation,
          .metric = first.metric,
          .value = combine(kernels, options),
          .unit = first.unit,
          .kernel = region_kernel_name(kernels, options),
          .kernel_index = -1};
}

Sample kernel_sample(const Record& r) {
  return {.config = r.config,
          .run = r.run,
          .annotation = r.annotation,
          .metric = r.metric,
          .value = r.value,
          .unit = r.unit,
          .kernel = r.kernel,
          .kernel_index = r.kernel_index};
}

std::vector<Sample> measured_samples(const std::vector<Record>& all, const Options& options) {
  std::vector<Record> kept;
  const std::span<const Record> records = values_of(all, kept);
  std::vector<Sample> samples;
  if (options.per_kernel) {
    std::transform(records.begin(), records.end(), std::back_inserter(samples), kernel_sample);
    return samples;
  }
  const auto regions = group_by(records, region_run_metric);
  for (const auto& kernels : regions) samples.push_back(combined_sample(kernels, options));
  return samples;
}

// --- derived metrics ---------------------------------------------------------------------------

// The values handed to derive, in the order of options.metrics; NaN for a metric not measured.
std::vector<double> derive_inputs(const std::vector<const Sample*>& group,
                                  const std::vector<std::string>& metrics) {
  std::vector<double> values;
  for (const auto& metric : metrics) {
    const auto it = std::find_if(group.begin(), group.end(),
                                 [&](const Sample* s) { return s->metric == metric; });
    values.push_back(it == group.end() ? kNaN : (*it)->value);
  }
  return values;
}

Sample derived_sample(const Sample& region, const DerivedValue& d) {
  return {.config = region.config,
          .run = region.run,
          .annotation = region.annotation,
          .metric = d.name,
          .value = d.value,
          .unit = d.unit,
          .kernel = region.kernel,
          .kernel_index = region.kernel_index};
}

// One Sample per derived value of each (config, run, annotation[, kernel]). Regions with a NaN
// input get NaN for every derived metric, so that a failed run counts as failed, not missing.
std::vector<Sample> derived_samples(const std::vector<Sample>& measured, const Options& options) {
  const auto regions = group_by(measured, [](const Sample& s) {
    return std::tuple(s.config, s.run, s.annotation, s.kernel_index);
  });
  std::vector<std::optional<std::vector<DerivedValue>>> outputs;
  std::vector<DerivedValue> catalog;  // every derived metric, in order of first appearance
  for (const auto& region : regions) {
    const std::vector<double> inputs = derive_inputs(region, options.metrics);
    outputs.emplace_back();
    if (std::any_of(inputs.begin(), inputs.end(), [](double v) { return std::isnan(v); })) continue;
    outputs.back() = options.derive(inputs, region.front()->config);
    for (const auto& d : *outputs.back())
      if (std::none_of(catalog.begin(), catalog.end(),
                       [&](const DerivedValue& c) { return c.name == d.name; }))
        catalog.push_back({d.name, kNaN, d.unit});
  }
  std::vector<Sample> samples;
  for (std::size_t i = 0; i < regions.size(); ++i)
    for (const auto& d : outputs[i] ? *outputs[i] : catalog)
      samples.push_back(derived_sample(*regions[i].front(), d));
  return samples;
}

// --- rows --------------------------------------------------------------------------------------

Row make_row(const std::vector<const Sample*>& group) {
  std::vector<double> values;
  for (const Sample* s : group) values.push_back(s->value);
  const Summary sum = summarize(values);
  const Sample& first = *group.front();
  return {.annotation = first.annotation,
          .metric = first.metric,
          .config = first.config,
          .kernel = first.kernel,
          .kernel_index = first.kernel_index,
          .mean = sum.mean,
          .stddev = sum.stddev,
          .min = sum.min,
          .max = sum.max,
          .median = sum.median,
          .num_runs = sum.n,
          .ci95_lower = sum.ci95.lower,
          .ci95_upper = sum.ci95.upper,
          .rel_stddev_pct = sum.rel_stddev_pct,
          .stable = sum.stable,
          .unit = first.unit,
          .normalized_against = "",
          .normalization_value = kNaN,
          .geomean = kNaN,
          .runs_done = 0,
          .stopped_by = "",
          .measured_clock_khz = kNaN,
          .temperature_c = kNaN,
          .throttled_runs = kNaN,
          .info = {}};
}

// nsight-python's order: measured metrics before the others (derived ones), then annotation
// (first appearance), config, kernel index, and metric (options.metrics, then first appearance).
void sort_rows(std::vector<Row>& rows, const std::vector<Sample>& samples,
               const std::vector<std::string>& measured) {
  const auto annotation_rank =
      first_appearance(samples, [](const Sample& s) { return s.annotation; });
  auto metric_rank = first_appearance(measured, [](const std::string& m) { return m; });
  const std::size_t measured_count = metric_rank.size();
  for (const Sample& s : samples) metric_rank.try_emplace(s.metric, metric_rank.size());
  const auto key = [&](const Row& r) {
    const std::size_t metric = metric_rank.at(r.metric);
    return std::tuple(metric >= measured_count, annotation_rank.at(r.annotation), r.config,
                      r.kernel_index, metric);
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const Row& a, const Row& b) { return key(a) < key(b); });
}

void require_annotation(const std::string& baseline, const std::vector<Sample>& samples) {
  const auto ranks = first_appearance(samples, [](const Sample& s) { return s.annotation; });
  if (ranks.contains(baseline)) return;
  throw AnnotationError(
      "normalize_against='" + baseline +
      "' names no annotation; annotations measured: " + join(names_in_order(ranks), ", "));
}

[[noreturn]] void throw_missing_baseline(const Row& row, const std::string& baseline) {
  const std::string kernel =
      row.kernel_index < 0 ? "" : ", kernel_index " + std::to_string(row.kernel_index);
  throw AnnotationError("normalize_against='" + baseline + "': annotation '" + row.annotation +
                        "' has a row for config " + std::to_string(row.config) + ", metric '" +
                        row.metric + "'" + kernel + ", but annotation '" + baseline +
                        "' has none; the baseline must be measured wherever it is compared");
}

void scale_row(Row& row, double baseline_mean, const std::string& baseline) {
  for (double* v :
       {&row.mean, &row.stddev, &row.min, &row.max, &row.median, &row.ci95_lower, &row.ci95_upper})
    *v /= baseline_mean;
  row.unit = "ratio";
  row.normalization_value = baseline_mean;
  row.normalized_against = baseline;
}

void normalize(std::vector<Row>& rows, const std::string& baseline,
               const std::vector<Sample>& samples) {
  require_annotation(baseline, samples);
  const auto key = [](const Row& r) { return std::tuple(r.config, r.metric, r.kernel_index); };
  std::map<decltype(key(rows.front())), double> baseline_means;
  for (const Row& r : rows)
    if (r.annotation == baseline) baseline_means.emplace(key(r), r.mean);
  for (Row& r : rows) {
    const auto it = baseline_means.find(key(r));
    if (it == baseline_means.end()) throw_missing_baseline(r, baseline);
    scale_row(r, it->second, baseline);
  }
}

}  // namespace

void add_geomeans(std::vector<Row>& rows) {
  const auto groups = group_by(
      rows, [](const Row& r) { return std::tuple(r.annotation, r.metric, r.kernel_index); });
  for (const auto& group : groups) {
    std::vector<double> means;
    for (const Row* r : group)
      if (!std::isnan(r->mean)) means.push_back(r->mean);
    const double g = geomean(means);
    for (Row* r : group) r->geomean = g;
  }
}

std::vector<Sample> make_samples(const std::vector<Record>& records, const Options& options) {
  std::vector<Sample> samples = measured_samples(records, options);
  if (options.derive) {
    std::vector<Sample> derived = derived_samples(samples, options);
    samples.insert(samples.end(), std::make_move_iterator(derived.begin()),
                   std::make_move_iterator(derived.end()));
  }
  return samples;
}

bool check_derive(std::span<const Record> records, const Options& options) {
  if (!options.derive || records.empty()) return false;
  Options measured = options;
  measured.derive = nullptr;
  const std::vector<Sample> samples =
      make_samples(std::vector<Record>(records.begin(), records.end()), measured);
  const auto regions = group_by(samples, [](const Sample& s) {
    return std::tuple(s.config, s.run, s.annotation, s.kernel_index);
  });
  for (const auto& region : regions) {
    const std::vector<double> inputs = derive_inputs(region, options.metrics);
    if (std::any_of(inputs.begin(), inputs.end(), [](double v) { return std::isnan(v); })) continue;
    options.derive(inputs, region.front()->config);
    return true;
  }
  return false;
}

std::vector<Row> make_rows(const std::vector<Sample>& samples, const Options& options) {
  std::vector<Row> rows;
  const auto groups = group_by(samples, [](const Sample& s) {
    return std::tuple(s.annotation, s.config, s.metric, s.kernel_index);
  });
  std::transform(groups.begin(), groups.end(), std::back_inserter(rows), make_row);
  sort_rows(rows, samples, options.metrics);
  if (!options.normalize_against.empty()) normalize(rows, options.normalize_against, samples);
  add_geomeans(rows);
  return rows;
}

double profiled_seconds_per_run(const std::vector<std::pair<int, double>>& runs, int warmup) {
  std::vector<double> seconds;
  for (const auto& [run, s] : runs)
    if (run > 0 || warmup > 0 || runs.size() == 1) seconds.push_back(s);
  return seconds.empty() ? kNaN : summarize(seconds).mean;
}

void add_conditions(std::vector<Row>& rows, const Conditions& conditions, int warmup) {
  struct PerConfig {
    const ConfigInfo* info = nullptr;
    int runs = 0;
    std::vector<double> clocks, temperatures;
    std::vector<std::pair<int, double>> seconds;  // (run, wall time)
    int throttle_known = 0, throttled = 0;
  };
  std::map<std::size_t, PerConfig> configs;
  for (const ConfigInfo& c : conditions.configs) configs[c.config].info = &c;
  for (const RunInfo& r : conditions.runs) {
    PerConfig& c = configs[r.config];
    ++c.runs;
    c.clocks.push_back(r.sm_clock_khz);
    c.temperatures.push_back(r.temperature_c);
    c.seconds.emplace_back(r.run, r.seconds);
    if (r.throttled) {
      ++c.throttle_known;
      c.throttled += *r.throttled ? 1 : 0;
    }
  }
  for (Row& row : rows) {
    const auto it = configs.find(row.config);
    if (it == configs.end()) continue;
    const PerConfig& c = it->second;
    row.runs_done = c.info ? c.info->runs : c.runs;
    row.stopped_by = c.info ? c.info->stopped_by : "";
    row.measured_clock_khz = summarize(c.clocks).mean;
    row.temperature_c = summarize(c.temperatures).mean;
    row.throttled_runs = c.throttle_known > 0 ? c.throttled : kNaN;
    // What profiling added to a run: against the config's unprofiled call.
    row.overhead_seconds =
        c.info ? profiled_seconds_per_run(c.seconds, warmup) - c.info->unprofiled_seconds : kNaN;
  }
  add_info(rows, conditions.info);
}

void add_info(std::vector<Row>& rows, const std::vector<InfoValue>& info) {
  struct Collector {
    std::string name;
    bool numeric = true;
    const InfoValue* once = nullptr;
  };
  std::vector<Collector> collectors;
  std::map<std::string, std::size_t> position;
  std::map<std::size_t, std::vector<const InfoValue*>> by_config;
  for (const InfoValue& v : info) {
    const auto [it, added] = position.try_emplace(v.name, collectors.size());
    if (added) collectors.push_back({v.name});
    Collector& c = collectors[it->second];
    if (v.scope == "once") {
      c.numeric = false;
      if (!c.once) c.once = &v;
    } else {
      by_config[v.config].push_back(&v);
    }
    if (!v.text.empty()) c.numeric = false;
  }
  const std::vector<const InfoValue*> none;
  for (Row& row : rows) {
    row.info.clear();
    const auto found = by_config.find(row.config);
    const auto& values = found == by_config.end() ? none : found->second;
    for (const Collector& c : collectors) {
      InfoStat stat;
      stat.name = c.name;
      stat.numeric = c.numeric;
      std::vector<const InfoValue*> mine;
      if (c.once) {
        mine.push_back(c.once);
      } else {
        for (const InfoValue* v : values)
          if (v->name == c.name && (v->scope != "annotation" || v->annotation == row.annotation))
            mine.push_back(v);
      }
      if (c.numeric) {
        std::vector<double> numbers;
        for (const InfoValue* v : mine) numbers.push_back(v->value);
        const Summary sum = summarize(numbers);
        stat.mean = sum.mean;
        stat.stddev = sum.stddev;
        stat.min = sum.min;
        stat.max = sum.max;
      } else {
        const auto first = std::find_if(mine.begin(), mine.end(), [](const InfoValue* v) {
          return !v->text.empty() || !std::isnan(v->value);
        });
        if (first != mine.end()) {
          stat.value = (*first)->value;
          stat.text = (*first)->text;
        }
      }
      row.info.push_back(std::move(stat));
    }
  }
}

Results aggregate(SessionInfo session, Sweep sweep, std::vector<Record> records,
                  const Options& options) {
  return aggregate(std::move(session), std::move(sweep), std::move(records), options, {});
}

Results aggregate(SessionInfo session, Sweep sweep, std::vector<Record> records,
                  const Options& options, Conditions conditions) {
  std::vector<Sample> samples = make_samples(records, options);
  std::vector<Row> rows = make_rows(samples, options);
  add_conditions(rows, conditions, options.warmup);
  return Results(std::move(session), std::move(sweep), std::move(records), std::move(samples),
                 std::move(rows), std::move(conditions.configs), std::move(conditions.runs),
                 std::move(conditions.info), {}, std::move(conditions.source));
}

}  // namespace kprof::detail

namespace kprof {

Results Results::aggregate(SessionInfo session, Sweep sweep, std::vector<Record> records,
                           const Options& options, std::vector<ConfigInfo> configs,
                           std::vector<RunInfo> runs, std::vector<InfoValue> info) {
  return detail::aggregate(std::move(session), std::move(sweep), std::move(records), options,
                           {std::move(configs), std::move(runs), std::move(info), {}});
}

}  // namespace kprof
