// Inside the metric catalog: what the GPU layer provides for one chip (CatalogSource, built by
// src/cuda from CUPTI's Profiler Host API, or refused by src/nocuda), the index the core builds
// on it, and the checks Options::validate() runs on a metric list.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"

namespace kprof::metrics::detail {

// GetMetricProperties of one name.
struct Properties {
  MetricType type = MetricType::counter;
  std::string unit, hw_unit, description;
};

struct BaseEntry {
  std::string name;
  MetricType type = MetricType::counter;
  std::size_t suffix_list = 0;  // index into CatalogSource::suffix_lists
};

// The metrics of one chip as the Profiler Host API lists them.
class CatalogSource {
 public:
  virtual ~CatalogSource() = default;

  std::string chip;
  std::vector<BaseEntry> bases;  // GetBaseMetrics of each type
  // GetSubMetrics of each base, stored once per distinct list (every counter of GH100 takes
  // the same 44 suffixes).
  std::vector<std::vector<std::string>> suffix_lists;

  // GetMetricProperties of a base or collectable name; empty when the API refuses the name.
  virtual std::optional<Properties> properties(const std::string& name) const = 0;
  // GetNumOfPasses of a configuration holding `names` (valid collectable names).
  virtual int passes(const std::vector<std::string>& names) const = 0;
};

// The GPU layer loads a chip's catalog source (core/measure/gpu_layer.hpp).

// --- built by the core ------------------------------------------------------------------------

struct CatalogIndex {
  std::unique_ptr<CatalogSource> source;
  std::vector<std::string> sorted_bases;
  std::unordered_map<std::string, std::size_t> base_by_name;   // -> source->bases
  std::unordered_map<std::string, std::size_t> base_by_lower;  // lower-case name -> bases
  std::size_t size = 0;                                        // collectable names

  mutable std::mutex mutex;
  mutable std::map<std::string, int> passes_cache;  // key: sorted names joined by '\n'
};

// A name cut into its base metric and suffix. base_index is set when the base is known
// (compared exactly, or ignoring case).
struct SplitName {
  std::string base, suffix;
  std::optional<std::size_t> base_index;
};
SplitName split_name(const CatalogIndex& index, std::string_view name, bool ignore_case);

// The OptionError for a name `catalog` does not hold: names the chip and the closest names.
OptionError unknown_metric(const MetricCatalog& catalog, const std::string& name,
                           const std::string& option);

}  // namespace kprof::metrics::detail

namespace kprof::detail {}  // namespace kprof::detail
