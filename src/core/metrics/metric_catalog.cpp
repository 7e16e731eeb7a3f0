// The metric catalog of a chip: names, search, closest names, descriptions and pass counts, on
// top of the CatalogSource the GPU layer builds from CUPTI's Profiler Host API. Catalogs are
// built once per chip and process; pass counts are cached per metric list.
#include "core/metrics/metric_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "core/edit_distance.hpp"
#include "core/measure/gpu_layer.hpp"
#include "core/metrics/sass_opcodes.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"
#include "kprof/options.hpp"

namespace kprof::metrics {

using detail::CatalogIndex;
using detail::SplitName;

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// '*' any run, '?' one character; both strings already lower-case.
bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// Matches names against a search pattern (see MetricCatalog::search).
class Matcher {
 public:
  explicit Matcher(std::string_view pattern)
      : pattern_(lower(pattern)), glob_(pattern_.find_first_of("*?") != std::string::npos) {}
  bool operator()(std::string_view name) const {
    const std::string l = lower(name);
    return glob_ ? glob_match(pattern_, l) : l.find(pattern_) != std::string::npos;
  }

 private:
  std::string pattern_;
  bool glob_;
};

const std::vector<std::string>& suffixes_of(const CatalogIndex& index, std::size_t base) {
  return index.source->suffix_lists[index.source->bases[base].suffix_list];
}

bool has_suffix(const CatalogIndex& index, std::size_t base, std::string_view suffix) {
  const auto& list = suffixes_of(index, base);
  return std::find(list.begin(), list.end(), suffix) != list.end();
}

// Suffixes suggested for a base metric given without one.
std::vector<std::string> default_suffixes(const CatalogIndex& index, std::size_t base) {
  static const std::map<MetricType, std::vector<std::string>> preferred = {
      {MetricType::counter, {".sum", ".avg", ".max", ".min"}},
      {MetricType::ratio, {".pct", ".ratio"}},
      {MetricType::throughput,
       {".avg.pct_of_peak_sustained_elapsed", ".max.pct_of_peak_sustained_elapsed"}}};
  std::vector<std::string> out;
  for (const std::string& s : preferred.at(index.source->bases[base].type))
    if (has_suffix(index, base, s)) out.push_back(s);
  const auto& all = suffixes_of(index, base);
  for (std::size_t i = 0; out.empty() && i < all.size() && i < 3; ++i) out.push_back(all[i]);
  return out;
}

// Whether the chip's own catalog lists `name` as a collectable name (a base and one of its
// suffixes): a launch statistic CUPTI also lists is listed once.
bool contains_base_name(const CatalogIndex& index, std::string_view name) {
  const SplitName s = detail::split_name(index, name, false);
  return s.base_index && !s.suffix.empty() && has_suffix(index, *s.base_index, s.suffix);
}

// A launch statistic or a sampled metric, which kprof provides beside the chip's counters,
// described as the catalog describes a metric: no pass, no suffixes.
std::optional<MetricInfo> launch_info(std::string_view name) {
  for (const auto& [list, hw_unit] :
       {std::pair{&launch_metrics(), "launch"}, std::pair{&sampled_metrics(), "pcsamp"}}) {
    for (const LaunchMetric& m : *list) {
      if (m.name != name) continue;
      MetricInfo info;
      info.name = info.base = std::string(m.name);
      info.type = MetricType::counter;
      info.unit = std::string(m.unit);
      info.hw_unit = hw_unit;
      info.description = std::string(m.description);
      return info;
    }
  }
  return std::nullopt;
}

// Provided by kprof rather than read from a counter: no pass of the range profiler.
bool provided(std::string_view name) { return is_launch_metric(name) || is_sampled_metric(name); }

std::shared_ptr<const CatalogIndex> build_index(std::unique_ptr<detail::CatalogSource> source) {
  auto index = std::make_shared<CatalogIndex>();
  for (std::size_t i = 0; i < source->bases.size(); ++i) {
    const detail::BaseEntry& b = source->bases[i];
    if (!index->base_by_name.emplace(b.name, i).second) continue;  // listed under two types
    index->base_by_lower.emplace(lower(b.name), i);
    index->sorted_bases.push_back(b.name);
    index->size += source->suffix_lists[b.suffix_list].size();
  }
  std::sort(index->sorted_bases.begin(), index->sorted_bases.end());
  index->source = std::move(source);
  return index;
}

// The supported chips, asked once (the answer cannot change within a process).
const std::vector<std::string>& chips_cached() {
  static std::mutex mutex;
  static std::vector<std::string> chips;
  std::lock_guard lock(mutex);
  if (chips.empty()) chips = detail::host_supported_chips();
  return chips;
}

}  // namespace

std::string to_string(MetricType type) {
  switch (type) {
    case MetricType::counter:
      return "counter";
    case MetricType::ratio:
      return "ratio";
    case MetricType::throughput:
      return "throughput";
  }
  return "?";
}

// --- split and error --------------------------------------------------------------------------

namespace detail {

SplitName split_name(const CatalogIndex& index, std::string_view name, bool ignore_case) {
  // A base may hold dots itself (group prefixes: "CTC.TriageCompute.ctc__rx_bytes"): try every
  // dot, the first prefix that is a base and leaves a valid suffix wins.
  const auto& bases = ignore_case ? index.base_by_lower : index.base_by_name;
  const std::string key = ignore_case ? lower(name) : std::string(name);
  std::optional<SplitName> first_base;
  for (std::size_t dot = name.find('.');; dot = name.find('.', dot + 1)) {
    const std::size_t end = dot == std::string_view::npos ? name.size() : dot;
    const auto it = bases.find(key.substr(0, end));
    if (it != bases.end()) {
      SplitName s{std::string(name.substr(0, end)), std::string(name.substr(end)), it->second};
      if (s.suffix.empty() || has_suffix(index, it->second, s.suffix)) return s;
      if (!first_base) first_base = s;
    }
    if (dot == std::string_view::npos) break;
  }
  if (first_base) return *first_base;
  // Unknown base: it ends at the first dot after its "unit__" part.
  const std::size_t unit = name.find("__");
  std::size_t dot = name.find('.', unit == std::string_view::npos ? 0 : unit);
  if (dot == std::string_view::npos) dot = name.size();
  return {std::string(name.substr(0, dot)), std::string(name.substr(dot)), std::nullopt};
}

OptionError unknown_metric(const MetricCatalog& catalog, const std::string& name,
                           const std::string& option) {
  const std::string chip = catalog.chip();
  std::string valid = "a metric name of " + chip;
  if (catalog.is_base(name)) {
    valid += " ('" + name + "' is a base metric: add a rollup and submetric)";
  }
  const std::vector<std::string> near = catalog.closest(name, 3);
  if (!near.empty()) valid += "; closest: " + join_choices(near);
  valid += "; `kprof metrics --chip " + chip + " --search TEXT` lists names";
  return OptionError(option, "'" + name + "'", valid);
}

}  // namespace detail

// --- MetricCatalog ----------------------------------------------------------------------------

MetricCatalog::MetricCatalog(std::shared_ptr<const CatalogIndex> index)
    : index_(std::move(index)) {}

const std::string& MetricCatalog::chip() const { return index_->source->chip; }

const std::vector<std::string>& MetricCatalog::base_names() const { return index_->sorted_bases; }

std::size_t MetricCatalog::size() const {
  return index_->size + launch_metrics().size() + sampled_metrics().size();
}

std::vector<std::string> MetricCatalog::names() const { return search("*"); }

bool MetricCatalog::is_base(std::string_view name) const {
  return index_->base_by_name.count(std::string(name)) != 0;
}

MetricType MetricCatalog::type_of(std::string_view name) const {
  if (provided(name)) return MetricType::counter;
  const SplitName s = detail::split_name(*index_, name, false);
  if (!s.base_index || !(s.suffix.empty() || has_suffix(*index_, *s.base_index, s.suffix)))
    throw detail::unknown_metric(*this, std::string(name), "metric");
  return index_->source->bases[*s.base_index].type;
}

bool MetricCatalog::contains(std::string_view name) const {
  return provided(name) || contains_base_name(*index_, name);
}

std::vector<std::string> MetricCatalog::search(std::string_view pattern) const {
  const Matcher match(pattern);
  std::vector<std::string> out;
  for (const std::string& base : index_->sorted_bases) {
    for (const std::string& suffix : suffixes_of(*index_, index_->base_by_name.at(base))) {
      std::string name = base + suffix;
      if (match(name)) out.push_back(std::move(name));
    }
  }
  for (const auto* list : {&launch_metrics(), &sampled_metrics()})
    for (const LaunchMetric& m : *list)
      if (match(m.name) && !contains_base_name(*index_, m.name)) out.emplace_back(m.name);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> MetricCatalog::search_base(std::string_view pattern) const {
  const Matcher match(pattern);
  std::vector<std::string> out;
  for (const std::string& base : index_->sorted_bases)
    if (match(base)) out.push_back(base);
  return out;
}

MetricInfo MetricCatalog::describe(const std::string& name) const {
  MetricInfo info = describe_brief(name);
  if (provided(name)) {
    info.passes = 0;
  } else if (!info.suffix.empty()) {
    info.passes = passes({name});
  }
  return info;
}

MetricInfo MetricCatalog::describe_brief(const std::string& name) const {
  if (const std::optional<MetricInfo> launch = launch_info(name)) return *launch;
  MetricInfo info;
  info.name = name;
  std::size_t base = 0;
  if (is_base(name)) {
    base = index_->base_by_name.at(name);
    info.base = name;
  } else if (contains(name)) {
    const SplitName s = detail::split_name(*index_, name, false);
    base = *s.base_index;
    info.base = s.base;
    info.suffix = s.suffix;
  } else {
    throw detail::unknown_metric(*this, name, "metric");
  }
  info.type = index_->source->bases[base].type;
  info.suffixes = suffixes_of(*index_, base);
  std::optional<detail::Properties> p = index_->source->properties(name);
  if (!p) p = index_->source->properties(info.base);
  if (p) {
    info.unit = p->unit;
    info.hw_unit = p->hw_unit;
    info.description = p->description;
  }
  return info;
}

int MetricCatalog::passes(const std::vector<std::string>& names) const {
  const std::vector<std::string> expanded = expand(names);
  if (expanded.empty()) throw OptionError("metric", "[]", "at least one metric name");
  for (const std::string& m : expanded)
    if (!contains(m)) throw detail::unknown_metric(*this, m, "metric");
  // Launch statistics come from the kernel's activity record: they take no pass.
  std::vector<std::string> sorted = counter_metrics(expanded);
  if (sorted.empty()) return 0;
  std::sort(sorted.begin(), sorted.end());
  std::string key;
  for (const std::string& m : sorted) key += m + "\n";
  {
    std::lock_guard lock(index_->mutex);
    const auto it = index_->passes_cache.find(key);
    if (it != index_->passes_cache.end()) return it->second;
  }
  const int n = index_->source->passes(sorted);
  std::lock_guard lock(index_->mutex);
  index_->passes_cache.emplace(key, n);
  return n;
}

std::vector<std::string> MetricCatalog::closest(std::string_view name, std::size_t n) const {
  const CatalogIndex& index = *index_;
  const std::string given = lower(name);
  if (given.empty() || n == 0) return {};
  const SplitName split = detail::split_name(index, given, true);
  const std::string given_base = lower(split.base);
  const std::string given_suffix = lower(split.suffix);

  // Candidate bases: the base itself when known, else the nearest by edit distance and the
  // shortest ones that hold the given base.
  std::vector<std::size_t> bases;
  if (split.base_index) {
    bases.push_back(*split.base_index);
  } else {
    const std::size_t limit = std::max<std::size_t>(2, given_base.size() * 2 / 5);
    std::vector<std::pair<std::size_t, std::size_t>> near;     // distance, base
    std::vector<std::pair<std::size_t, std::size_t>> holding;  // length, base
    for (const auto& [low, i] : index.base_by_lower) {
      const std::size_t d = kprof::detail::edit_distance(given_base, low);
      if (d <= limit) near.emplace_back(d, i);
      if (given_base.size() >= 4 && low.find(given_base) != std::string::npos)
        holding.emplace_back(low.size(), i);
    }
    std::sort(near.begin(), near.end());
    std::sort(holding.begin(), holding.end());
    for (std::size_t k = 0; k < near.size() && k < 8; ++k) bases.push_back(near[k].second);
    for (std::size_t k = 0; k < holding.size() && k < 4; ++k) bases.push_back(holding[k].second);
  }

  // For each base: the given suffix when it takes it, else its nearest suffixes.
  std::set<std::pair<std::size_t, std::string>> ranked;
  for (const std::size_t b : bases) {
    const std::string& base = index.source->bases[b].name;
    std::vector<std::string> suffixes;
    if (given_suffix.empty()) {
      suffixes = default_suffixes(index, b);
    } else {
      std::vector<std::pair<std::size_t, std::string>> by_distance;
      for (const std::string& s : suffixes_of(index, b))
        by_distance.emplace_back(kprof::detail::edit_distance(given_suffix, lower(s)), s);
      std::sort(by_distance.begin(), by_distance.end());
      for (std::size_t k = 0; k < by_distance.size() && k < 3; ++k)
        suffixes.push_back(by_distance[k].second);
    }
    for (std::size_t k = 0; k < suffixes.size(); ++k) {
      const std::string candidate = base + suffixes[k];
      // Without a suffix, keep the preferred order (.sum before .avg) rather than the distance.
      const std::size_t score = given_suffix.empty()
                                    ? kprof::detail::edit_distance(given_base, lower(base)) * 16 + k
                                    : kprof::detail::edit_distance(given, lower(candidate)) * 16;
      ranked.emplace(score, candidate);
    }
  }
  for (const LaunchMetric& m : launch_metrics()) {
    const std::size_t d = kprof::detail::edit_distance(given, lower(m.name));
    if (d <= std::max<std::size_t>(2, given.size() * 2 / 5)) ranked.emplace(d * 16, m.name);
  }
  std::vector<std::string> out;
  for (const auto& [score, candidate] : ranked) {
    if (out.size() == n) break;
    if (std::find(out.begin(), out.end(), candidate) == out.end()) out.push_back(candidate);
  }
  return out;
}

// --- catalogs, chips --------------------------------------------------------------------------

std::vector<std::string> supported_chips() { return chips_cached(); }

MetricCatalog catalog(const std::string& chip) {
  const std::vector<std::string>& chips = chips_cached();
  std::string canonical;
  for (const std::string& c : chips)
    if (c == chip || lower(c) == lower(chip)) canonical = c;
  if (canonical.empty()) {
    throw OptionError(
        "chip", "'" + chip + "'",
        "a chip the Profiler Host API of this CUPTI supports: " + join_choices(chips));
  }
  static std::mutex mutex;
  // Never destroyed: a catalog holds a CUPTI host object, which must not be released while
  // the process exits and libcupti may already be gone.
  static auto* cache = new std::map<std::string, std::shared_ptr<const CatalogIndex>>();
  std::lock_guard lock(mutex);
  auto& slot = (*cache)[canonical];
  if (!slot) slot = build_index(detail::load_catalog_source(canonical));
  return MetricCatalog(slot);
}

std::optional<std::string> current_chip() { return detail::device_chip(); }

}  // namespace kprof::metrics
