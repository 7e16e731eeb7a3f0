// Hardware-counter metrics: the catalog of a GPU chip, metric sets and pass counts.
//
// The catalog comes from CUPTI's Profiler Host API, which runs on the CPU: given a chip name
// ("GH100" for H100 and H200) it needs no GPU and no driver. With a GPU present,
// current_chip() names the chip of the current CUDA device.
//
// Metric names follow Nsight Compute: a base metric, a rollup and an optional submetric,
//   dram__bytes_read.sum                       counter, summed over every DRAM unit
//   dram__bytes_read.sum.per_second            the same per second of elapsed time
//   sm__throughput.avg.pct_of_peak_sustained_elapsed     a throughput, in % of peak
//   lts__t_sector_hit_rate.pct                 a ratio, in percent
// Some base metrics carry a group prefix (TriageCompute.sm__throughput); they are valid names
// too. Which suffixes a base metric takes depends on its type and is listed by the catalog.
//
// A metric set is a named group of metrics that answers one question ("set:memory"); wherever
// kprof takes a list of metric names, "set:NAME" stands for the set's members.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::metrics {

enum class MetricType { counter, ratio, throughput };

// "counter", "ratio", "throughput".
std::string to_string(MetricType type);

// What the Profiler Host API says about one metric name.
struct MetricInfo {
  std::string name;    // as asked for
  std::string base;    // the base metric, group prefix included ("dram__bytes_read")
  std::string suffix;  // rollup and submetric (".sum.per_second"); empty for a base metric
  MetricType type = MetricType::counter;
  std::string unit;     // dimension of the values: "byte", "nanosecond", "percent", "byte/second";
                        // empty for a dimensionless ratio
  std::string hw_unit;  // the hardware unit that counts it: "dram", "sm", "lts", "gpu"...
  std::string description;
  // Passes the range profiler needs to collect this metric alone; empty for a base metric,
  // which cannot be collected without a suffix.
  std::optional<int> passes;
  std::vector<std::string> suffixes;  // every suffix the base metric takes
};

namespace detail {
struct CatalogIndex;
}  // namespace detail

// The metrics of one chip. Cheap to copy (shared, immutable data); thread-safe.
class MetricCatalog {
 public:
  const std::string& chip() const;

  // Base metrics, sorted; group-prefixed ones included.
  const std::vector<std::string>& base_names() const;
  // Every collectable name (base x suffix), sorted. About 150,000 on GH100.
  std::vector<std::string> names() const;
  // Number of collectable names, without building them.
  std::size_t size() const;

  // Whether `name` is a collectable metric of this chip (exact, case-sensitive).
  bool contains(std::string_view name) const;
  // Whether `name` is a base metric of this chip.
  bool is_base(std::string_view name) const;
  // The type of a base metric or collectable name, without asking CUPTI. Throws OptionError
  // (option "metric") for an unknown name.
  MetricType type_of(std::string_view name) const;

  // Collectable names that match `pattern`, sorted. The match ignores case; a pattern with
  // '*' (any run of characters) or '?' (one character) must match the whole name, any other
  // pattern may match any part of it. "dram__bytes" finds dram__bytes_read.sum and others;
  // "*.sum" finds every sum.
  std::vector<std::string> search(std::string_view pattern) const;
  // The same over base metrics only.
  std::vector<std::string> search_base(std::string_view pattern) const;

  // Type, unit, description and pass count of a collectable name or a base metric. Throws
  // OptionError (option "metric") naming the closest valid names when it is neither.
  MetricInfo describe(const std::string& name) const;
  // describe() without the pass count (which costs a CUPTI configuration per name): for lists.
  MetricInfo describe_brief(const std::string& name) const;

  // Passes the range profiler needs to collect `names` together (GetNumOfPasses of their
  // configuration, computed without a GPU). "set:NAME" entries stand for their members.
  // Throws OptionError (option "metric") for an unknown name or set, or an empty list.
  int passes(const std::vector<std::string>& names) const;

  // Up to `n` valid names closest to `name` (edit distance, ignoring case, base metric and
  // suffix corrected separately); empty when nothing is near.
  std::vector<std::string> closest(std::string_view name, std::size_t n = 5) const;

 private:
  friend MetricCatalog catalog(const std::string& chip);
  explicit MetricCatalog(std::shared_ptr<const detail::CatalogIndex> index);
  std::shared_ptr<const detail::CatalogIndex> index_;
};

// Chips the Profiler Host API of this CUPTI knows ("GV100", ..., "GH100", ..., "GB202").
// Throws NoGpuError when kprof was built without CUDA, CudaError when CUPTI cannot run.
std::vector<std::string> supported_chips();

// The catalog of `chip` (case-insensitive: "gh100" is GH100), built once per process and then
// shared. Throws OptionError naming the chip and the supported ones when CUPTI does not know
// it, NoGpuError when kprof was built without CUDA.
MetricCatalog catalog(const std::string& chip);

// The chip of the current CUDA device, as CUPTI names it; empty when this process has no
// usable GPU (no driver, no device, or kprof built without CUDA).
std::optional<std::string> current_chip();

// --- launch statistics ------------------------------------------------------------------------

// What Nsight Compute reports of a kernel's launch in its LaunchStats and Occupancy sections,
// by its names: grid and block, registers, shared memory, SMs, waves, the occupancy limits and
// the theoretical occupancy. kprof reads them from the kernel's activity record, the device's
// attributes and CUDA's occupancy calculator rather than from counters, so they take no pass
// and may stand in any metric list beside counters. They are per kernel: range replay, which
// measures a region as a whole, has none.
struct LaunchMetric {
  std::string_view name;
  std::string_view unit;  // "block", "thread", "B", "%", ... as Nsight Compute writes them
  std::string_view description;
};

// Every launch statistic kprof provides, in Nsight Compute's order of its sections.
const std::vector<LaunchMetric>& launch_metrics();
// Whether `name` is one of launch_metrics().
bool is_launch_metric(std::string_view name);
// The entries of `names` that are neither launch statistics, set:flop's instruction counts nor
// sampled metrics (each taken in a pass of its own): what the range profiler collects.
std::vector<std::string> counter_metrics(const std::vector<std::string>& names);
// The entries of `names` that are launch statistics, in their order.
std::vector<std::string> launch_metrics_in(const std::vector<std::string>& names);

// --- sampled metrics ---------------------------------------------------------------------------

// Nsight Compute's warp-sampling metrics (its SourceCounters and WarpStateStats sections), which
// kprof takes from CUPTI's PC sampling in one more call of each config (set:source): every 2^N
// cycles each SM reports one warp's PC and why it was not issued. A region's value is its
// samples: all of them (smsp__pcsamp_sample_count), and those of each stall reason
// (smsp__pcsamp_warps_issue_stalled_<reason>, the reason each sampled warp had, whether or not it
// was issued; the `_not_issued` variants, which Nsight Compute 2025.4 shows by default, count
// only the samples of warps not issued). A reason's share of the samples is the share of the
// warps' time spent on it. The reasons are CUPTI's for Hopper; another chip may name others.
// The sample count, each reason's metric, then each reason's `_not_issued` metric.
const std::vector<LaunchMetric>& sampled_metrics();
// Whether `name` is one of sampled_metrics().
bool is_sampled_metric(std::string_view name);
// "smsp__pcsamp_warps_issue_stalled_" + reason.
std::string stall_metric(std::string_view reason);
// The metric of a region's samples of every reason.
inline constexpr std::string_view kSampleCountMetric = "smsp__pcsamp_sample_count";
// The reason a stall metric (or CUPTI's name of a reason) counts: "long_scoreboard" of
// stall_metric("long_scoreboard"); "" for any other name.
std::string_view stall_reason_of(std::string_view metric);
// Whether `reason` is a `_not_issued` variant: a part of its plain reason's samples, left out of
// the sample count and of the shares, whose plain reasons add up to 100%.
bool is_not_issued(std::string_view reason);

// --- metric sets ------------------------------------------------------------------------------

// The prefix that names a set in a metric list: "set:memory".
inline constexpr std::string_view kSetPrefix = "set:";

struct MetricSet {
  std::string name;      // "speed-of-light"
  std::string question;  // one sentence: what the set answers
  std::vector<std::string> metrics;
};

// kprof's sets: speed-of-light, memory, compute, occupancy, launch, analysis.
const std::vector<MetricSet>& sets();

// The set called `name` ("memory" or "set:memory"). Throws OptionError naming the sets.
const MetricSet& find_set(std::string_view name);

// `metrics` with every "set:NAME" replaced by the set's members, duplicates dropped (the first
// occurrence stays). Throws OptionError (option "metrics") for an unknown set and for Nsight
// Compute's sets and sections, which kprof's engine does not measure.
std::vector<std::string> expand(const std::vector<std::string>& metrics);

// --- Nsight Compute's sets and sections -------------------------------------------------------

// The prefix that names one of Nsight Compute's sections in a metric list: "section:Occupancy".
inline constexpr std::string_view kSectionPrefix = "section:";

// One of Nsight Compute's sets ("set:full": a set that is not kprof's) or sections
// ("section:SpeedOfLight"). Python's Tool.NCU hands them to ncu (--set, --section) for its
// report; kprof's engine refuses them when a profile starts, so that a script declaring them
// imports whichever tool it runs with.
struct NcuSelection {
  std::string kind;  // "set" or "section", as ncu's options name them
  std::string name;  // "full", "SpeedOfLight"
};
// Whether `name` names one of Nsight Compute's sets or sections.
bool is_ncu_selection(std::string_view name);
// The entries of `metrics` that name Nsight Compute's sets or sections, in their order.
std::vector<NcuSelection> ncu_selections(const std::vector<std::string>& metrics);
// The metrics the tables hold when Nsight Compute measures `metrics`: kprof's sets expanded,
// Nsight Compute's sets and sections left to its report, the duration where nothing else is
// named.
std::vector<std::string> tabled_metrics(const std::vector<std::string>& metrics);

}  // namespace kprof::metrics
