// The columns of every table of results, in order (include/kprof/layout.hpp). nsight-python's
// columns keep its names, order and meanings; kprof's own follow them.
#include "kprof/layout.hpp"

#include <algorithm>
#include <array>

namespace kprof {
namespace {

using K = ColumnKind;
using S = ColumnSource;
using W = ColumnShown;

template <std::size_t N>
using Columns = std::array<ResultColumn, N>;

// The parts of a table, one after the other.
template <std::size_t... N>
constexpr auto join(const Columns<N>&... parts) {
  Columns<(N + ...)> out{};
  auto at = out.begin();
  ((at = std::copy(parts.begin(), parts.end(), at)), ...);
  return out;
}

// The session's device, on every line of the rows and samples (nsight-python's context).
constexpr auto kDevice = std::to_array<ResultColumn>({
    {"GPU", K::text, S::session, "gpu"},
    {"Host", K::text, S::session, "host"},
    {"ComputeClock", K::integer, S::session, "compute_clock_khz", "kHz"},
    {"MemoryClock", K::integer, S::session, "memory_clock_khz", "kHz"},
});

// Which process and GPU measured the line: its rank in its job (0 alone) and the CUDA ordinal.
// Merged results (kprof/merge.hpp) take them from the session of the line's config. Files
// written before they existed lack them.
constexpr auto kRank = std::to_array<ResultColumn>({
    {"Rank", K::integer, S::session, "rank", "", W::always, true},
    {"Device", K::optional_integer, S::session, "device", "", W::always, true},
});

// The parameter columns, last in a DataFrame.
constexpr auto kParameters = std::to_array<ResultColumn>({
    {"", K::parameters, S::item, "config"},
});

// The rows: one per (annotation, config, metric), and per kernel in per-kernel mode.
constexpr auto kRowStatistics = std::to_array<ResultColumn>({
    {"Annotation", K::text, S::item, "annotation"},
    {"Metric", K::text, S::item, "metric"},
    {"", K::parameters, S::item, "config"},
    {"AvgValue", K::real, S::item, "mean", "Unit"},
    {"StdDev", K::real, S::item, "stddev", "Unit"},  // sample (n-1); NaN for one run
    {"MinValue", K::real, S::item, "min", "Unit"},
    {"MaxValue", K::real, S::item, "max", "Unit"},
    {"NumRuns", K::integer, S::item, "num_runs"},
    {"Kernel", K::text, S::item, "kernel"},
});

constexpr auto kRowTail = std::to_array<ResultColumn>({
    {"Unit", K::optional_text, S::item, "unit"},
    {"", K::info, S::item, "info"},  // processed_data has them after every other column
    {"CI95_Lower", K::real, S::item, "ci95_lower", "Unit"},
    {"CI95_Upper", K::real, S::item, "ci95_upper", "Unit"},
    {"RelativeStdDevPct", K::real, S::item, "rel_stddev_pct", "%"},
    {"StableMeasurement", K::flag, S::item, "stable"},
    {"Normalized", K::baseline, S::item, "normalized_against"},
    {"NormalizationValue", K::real, S::item, "normalization_value", "Unit", W::normalized},
    {"Geomean", K::real, S::item, "geomean", "Unit"},
    // kprof's own
    {"Median", K::real, S::item, "median", "Unit"},
    {"KernelIndex", K::integer, S::item, "kernel_index", "", W::per_kernel},
    {"Config", K::integer, S::item, "config", "", W::files},
    {"Backend", K::text, S::session, "backend"},
    {"ReplayMode", K::text, S::session, "replay_mode"},
    {"CacheControl", K::text, S::session, "cache_control"},
    {"Passes", K::integer, S::session, "passes"},
    {"RunsDone", K::integer, S::item, "runs_done", "", W::always, true},
    {"StoppedBy", K::optional_text, S::item, "stopped_by", "", W::always, true},
    {"MeasuredClock", K::real, S::item, "measured_clock_khz", "kHz", W::always, true},
    {"Temperature", K::real, S::item, "temperature_c", "C", W::always, true},
    {"ThrottledRuns", K::real, S::item, "throttled_runs", "", W::always, true},
    {"ProfilingOverhead", K::real, S::item, "overhead_seconds", "s", W::always, true},
});

constexpr auto kRows = join(kRowStatistics, kDevice, kRowTail, kRank);

// The samples: one per (annotation, config, run, metric), and per kernel in per-kernel mode.
// nsight-python's profiled_data columns first.
constexpr auto kSampleValues = std::to_array<ResultColumn>({
    {"Annotation", K::text, S::item, "annotation"},
    {"Value", K::real, S::item, "value", "Unit"},
    {"Metric", K::text, S::item, "metric"},
    {"Kernel", K::text, S::item, "kernel"},
});

constexpr auto kSampleTail = std::to_array<ResultColumn>({
    {"Unit", K::optional_text, S::item, "unit"},
    {"", K::info, S::collectors, ""},
    {"Run", K::integer, S::item, "run"},
    {"KernelIndex", K::integer, S::item, "kernel_index", "", W::per_kernel},
    {"MeasuredClock", K::real, S::run, "sm_clock_khz", "kHz"},
    {"Temperature", K::real, S::run, "temperature_c", "C"},
    {"ClockEventReasons", K::optional_integer, S::run, "clock_event_reasons"},
    {"Throttled", K::flag, S::run, "throttled"},
});

constexpr auto kSampleFileTail = std::to_array<ResultColumn>({
    {"Unit", K::optional_text, S::item, "unit"},
    {"KernelIndex", K::integer, S::item, "kernel_index"},
    {"Run", K::integer, S::item, "run"},
    {"Config", K::integer, S::item, "config"},
    {"", K::parameters, S::item, "config"},
});

constexpr auto kSamples = join(kSampleValues, kDevice, kSampleTail, kRank, kParameters);
constexpr auto kSamplesFile = join(kSampleValues, kDevice, kSampleFileTail, kRank);

// The raw records: one per measured kernel, run and metric.
constexpr auto kRecordsColumns = std::to_array<ResultColumn>({
    {"Annotation", K::text, S::item, "annotation"},  // the path: "outer/inner" when nested
    {"Kernel", K::text, S::item, "kernel"},
    {"KernelIndex", K::integer, S::item, "kernel_index"},
    {"Run", K::integer, S::item, "run"},
    {"Metric", K::text, S::item, "metric"},
    {"Value", K::real, S::item, "value", "Unit"},
    {"Unit", K::optional_text, S::item, "unit"},
    {"GpuStart", K::optional_integer, S::item, "start_ns", "ns", W::always, true},
    {"GpuEnd", K::optional_integer, S::item, "end_ns", "ns", W::always, true},
    {"Stream", K::optional_integer, S::item, "stream", "", W::always, true},
    {"Kind", K::text, S::item, "kind", "", W::always, true},
    {"Bytes", K::optional_integer, S::item, "bytes", "B", W::always, true},
});

constexpr auto kRecords = join(kRecordsColumns, kRank, kParameters);

constexpr auto kRecordsFileColumns = std::to_array<ResultColumn>({
    {"Config", K::integer, S::item, "config"},
    {"Run", K::integer, S::item, "run"},
    {"Annotation", K::text, S::item, "annotation"},
    {"Kernel", K::text, S::item, "kernel"},
    {"KernelIndex", K::integer, S::item, "kernel_index"},
    {"Metric", K::text, S::item, "metric"},
    {"Value", K::real, S::item, "value", "Unit"},
    {"Unit", K::optional_text, S::item, "unit"},
    {"", K::parameters, S::item, "config"},
    // After the parameters: files written before these columns end at the parameters.
    {"GpuStart", K::optional_integer, S::item, "start_ns", "ns", W::always, true},
    {"GpuEnd", K::optional_integer, S::item, "end_ns", "ns", W::always, true},
    {"Stream", K::optional_integer, S::item, "stream", "", W::always, true},
    {"Kind", K::text, S::item, "kind", "", W::always, true},
    {"Bytes", K::optional_integer, S::item, "bytes", "B", W::always, true},
});

constexpr auto kRecordsFile = join(kRecordsFileColumns, kRank);

constexpr auto kRunsColumns = std::to_array<ResultColumn>({
    {"Config", K::integer, S::item, "config"},
    {"Run", K::integer, S::item, "run"},
    {"Seconds", K::real, S::item, "seconds", "s"},
    {"ThermalPause", K::real, S::item, "pause_s", "s"},
    {"MeasuredClock", K::real, S::item, "sm_clock_khz", "kHz"},
    {"Temperature", K::real, S::item, "temperature_c", "C"},
    {"ClockEventReasons", K::optional_integer, S::item, "clock_event_reasons"},
    {"Throttled", K::flag, S::item, "throttled"},
    {"", K::parameters, S::item, "config"},
});

constexpr auto kRuns = join(kRunsColumns, kRank);

constexpr auto kConfigsFile = std::to_array<ResultColumn>({
    {"Config", K::integer, S::item, "config"},
    {"Runs", K::integer, S::item, "runs"},
    {"StoppedBy", K::text, S::item, "stopped_by"},
    {"Seconds", K::real, S::item, "seconds", "s"},
    {"", K::parameters, S::item, "config"},
    {"UnprofiledSeconds", K::real, S::item, "unprofiled_seconds", "s", W::always, true},
});

constexpr auto kInfoFile = std::to_array<ResultColumn>({
    {"Name", K::text, S::item, "name"},
    {"Scope", K::text, S::item, "scope"},
    {"Config", K::integer, S::item, "config"},
    {"Run", K::integer, S::item, "run"},
    {"Annotation", K::text, S::item, "annotation"},
    {"Value", K::real, S::item, "value"},
    {"Text", K::text, S::item, "text"},
    {"", K::parameters, S::item, "config"},
});

// What limits each region (kprof/analysis.hpp); FLOP and bytes per second in their own units,
// which pandas users scale as they like.
constexpr auto kAnalysisColumns = std::to_array<ResultColumn>({
    {"Annotation", K::text, S::item, "annotation"},
    {"Kernel", K::text, S::item, "kernel"},
    {"KernelIndex", K::integer, S::item, "kernel_index", "", W::per_kernel},
    {"Region", K::text, S::item, "region"},
    {"Bound", K::text, S::item, "bound"},
    {"Verdict", K::text, S::item, "verdict"},
    {"SMThroughputPct", K::real, S::item, "sm_throughput_pct", "%"},
    {"MemoryThroughputPct", K::real, S::item, "memory_throughput_pct", "%"},
    {"DRAMThroughputPct", K::real, S::item, "dram_throughput_pct", "%"},
    {"LimitingUnit", K::text, S::item, "limiting_unit"},
    {"LimitingUnitPct", K::real, S::item, "limiting_unit_pct", "%"},
    {"AchievedOccupancyPct", K::real, S::item, "achieved_occupancy_pct", "%"},
    {"TheoreticalOccupancyPct", K::real, S::item, "theoretical_occupancy_pct", "%"},
    {"OccupancyLimiter", K::optional_text, S::item, "occupancy_limiter"},
    {"WavesPerSM", K::real, S::item, "waves_per_sm"},
    {"ArithmeticIntensity", K::real, S::item, "arithmetic_intensity", "FLOP/B"},
    {"Precision", K::optional_text, S::item, "precision"},
    {"AchievedTFLOPs", K::real, S::item, "achieved_tflops", "TFLOP/s"},
    {"PeakTFLOPs", K::real, S::item, "peak_tflops", "TFLOP/s"},
    {"RooflineTFLOPs", K::real, S::item, "roofline_tflops", "TFLOP/s"},
    {"TensorTFLOPs", K::real, S::item, "tensor_tflops", "TFLOP/s"},
    {"TensorPeakTFLOPs", K::real, S::item, "tensor_peak_tflops", "TFLOP/s"},
    {"FP32TFLOPs", K::real, S::item, "fp32_tflops", "TFLOP/s"},
    {"FP32PeakTFLOPs", K::real, S::item, "fp32_peak_tflops", "TFLOP/s"},
    {"FP64TFLOPs", K::real, S::item, "fp64_tflops", "TFLOP/s"},
    {"FP64PeakTFLOPs", K::real, S::item, "fp64_peak_tflops", "TFLOP/s"},
    {"FP16TFLOPs", K::real, S::item, "fp16_tflops", "TFLOP/s"},
    {"FP16PeakTFLOPs", K::real, S::item, "fp16_peak_tflops", "TFLOP/s"},
    {"DRAMTBs", K::real, S::item, "dram_tbs", "TB/s"},
    {"DRAMPeakTBs", K::real, S::item, "dram_peak_tbs", "TB/s"},
    {"Advice", K::text, S::item, "advice"},
});

constexpr auto kAnalysis = join(kAnalysisColumns, kRank, kParameters);

// Where processes measured the same thing (kprof/merge.hpp): the slowest and the fastest.
constexpr auto kImbalance = std::to_array<ResultColumn>({
    {"Annotation", K::text, S::item, "annotation"},
    {"Metric", K::text, S::item, "metric"},
    {"Kernel", K::text, S::item, "kernel"},
    {"KernelIndex", K::integer, S::item, "kernel_index", "", W::per_kernel},
    {"", K::parameters, S::item, "config"},
    {"Ranks", K::integer, S::item, "ranks"},
    {"SlowestRank", K::integer, S::item, "slowest_rank"},
    {"SlowestHost", K::text, S::item, "slowest_host"},
    {"SlowestDevice", K::optional_integer, S::item, "slowest_device"},
    {"Slowest", K::real, S::item, "slowest", "Unit"},
    {"FastestRank", K::integer, S::item, "fastest_rank"},
    {"FastestHost", K::text, S::item, "fastest_host"},
    {"FastestDevice", K::optional_integer, S::item, "fastest_device"},
    {"Fastest", K::real, S::item, "fastest", "Unit"},
    {"Ratio", K::real, S::item, "ratio"},
    {"Unit", K::optional_text, S::item, "unit"},
});

// Two results compared row by row (kprof/compare.hpp): the rows in both, then the rows of one
// side only, with that side's mean and runs.
constexpr auto kComparison = std::to_array<ResultColumn>({
    {"Annotation", K::text, S::item, "annotation"},
    {"Metric", K::text, S::item, "metric"},
    {"", K::parameters, S::item, "config"},
    {"KernelIndex", K::integer, S::item, "kernel_index", "", W::per_kernel},
    {"BaseMean", K::real, S::item, "base_mean", "Unit"},
    {"NewMean", K::real, S::item, "new_mean", "Unit"},
    {"ChangePct", K::real, S::item, "change_pct", "%"},
    {"CIOverlap", K::flag, S::item, "ci_overlap"},
    {"PValue", K::real, S::item, "p_value"},
    {"Verdict", K::text, S::item, "verdict"},
    {"BaseRuns", K::optional_integer, S::item, "base_runs"},
    {"NewRuns", K::optional_integer, S::item, "new_runs"},
    {"Unit", K::optional_text, S::item, "unit"},
    {"U", K::real, S::item, "u"},
    {"Test", K::optional_text, S::item, "method"},
});

// Why each region's warps waited (kprof/stalls.hpp): a line per region and stall reason.
constexpr auto kStallColumns = std::to_array<ResultColumn>({
    {"Annotation", K::text, S::item, "annotation"},
    {"Kernel", K::text, S::item, "kernel"},
    {"KernelIndex", K::integer, S::item, "kernel_index", "", W::per_kernel},
    {"Region", K::text, S::item, "region"},
    {"Reason", K::text, S::item, "reason"},
    {"Samples", K::real, S::item, "samples", "sample"},
    {"SharePct", K::real, S::item, "share_pct", "%"},
});

constexpr auto kStalls = join(kStallColumns, kRank, kParameters);

// set:source's sampled instructions (Results::source()): a line per instruction and reason.
constexpr auto kSourceColumns = std::to_array<ResultColumn>({
    {"Annotation", K::text, S::item, "annotation"},
    {"Kernel", K::text, S::item, "kernel"},
    {"PcOffset", K::integer, S::item, "pc_offset"},
    {"Sass", K::optional_text, S::item, "sass"},
    {"File", K::optional_text, S::item, "file"},
    {"Line", K::integer, S::item, "line"},
    {"Reason", K::text, S::item, "reason"},
    {"Samples", K::real, S::item, "samples", "sample"},
});

constexpr auto kSource = join(kSourceColumns, kRank, kParameters);

// Each sampled instruction of a region with its share (kprof/stalls.hpp's InstructionShare).
constexpr auto kInstructionColumns = std::to_array<ResultColumn>({
    {"Annotation", K::text, S::item, "annotation"},
    {"Kernel", K::text, S::item, "kernel"},
    {"Region", K::text, S::item, "region"},
    {"PcOffset", K::integer, S::item, "pc_offset"},
    {"Sass", K::optional_text, S::item, "sass"},
    {"File", K::optional_text, S::item, "file"},
    {"Line", K::integer, S::item, "line"},
    {"Samples", K::real, S::item, "samples", "sample"},
    {"SharePct", K::real, S::item, "share_pct", "%"},
    {"TopReason", K::text, S::item, "top_reason"},
});

constexpr auto kInstructions = join(kInstructionColumns, kRank, kParameters);

struct TableEntry {
  ResultTable table;
  std::string_view name;
  std::span<const ResultColumn> columns;
};

constexpr TableEntry kTables[] = {
    {ResultTable::rows, "rows", kRows},
    {ResultTable::samples, "samples", kSamples},
    {ResultTable::samples_file, "samples_file", kSamplesFile},
    {ResultTable::records, "records", kRecords},
    {ResultTable::records_file, "records_file", kRecordsFile},
    {ResultTable::runs, "runs", kRuns},
    {ResultTable::configs_file, "configs_file", kConfigsFile},
    {ResultTable::info_file, "info_file", kInfoFile},
    {ResultTable::analysis, "analysis", kAnalysis},
    {ResultTable::imbalance, "imbalance", kImbalance},
    {ResultTable::comparison, "comparison", kComparison},
    {ResultTable::stalls, "stalls", kStalls},
    {ResultTable::source, "source", kSource},
    {ResultTable::instructions, "instructions", kInstructions},
};

static_assert(std::size(kTables) == kResultTables.size());

const TableEntry& entry(ResultTable table) {
  return *std::find_if(std::begin(kTables), std::end(kTables),
                       [&](const TableEntry& e) { return e.table == table; });
}

// Names of the enumerators, in their order.
constexpr std::string_view kKindNames[] = {"text", "optional_text", "integer",  "optional_integer",
                                           "real", "flag",          "baseline", "parameters",
                                           "info"};
constexpr std::string_view kSourceNames[] = {"item", "session", "run", "collectors"};
constexpr std::string_view kShownNames[] = {"always", "normalized", "per_kernel", "files"};

}  // namespace

std::span<const ResultColumn> result_columns(ResultTable table) { return entry(table).columns; }

const std::vector<std::string>& result_column_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const TableEntry& t : kTables) {
      if (t.table == ResultTable::configs_file || t.table == ResultTable::info_file ||
          t.table == ResultTable::analysis || t.table == ResultTable::imbalance ||
          t.table == ResultTable::comparison || t.table == ResultTable::stalls ||
          t.table == ResultTable::source || t.table == ResultTable::instructions)
        continue;
      for (const ResultColumn& c : t.columns)
        if (!c.name.empty() && std::find(out.begin(), out.end(), c.name) == out.end())
          out.emplace_back(c.name);
    }
    return out;
  }();
  return names;
}

std::string_view to_string(ResultTable table) { return entry(table).name; }
std::string_view to_string(ColumnKind kind) { return kKindNames[static_cast<int>(kind)]; }
std::string_view to_string(ColumnSource source) { return kSourceNames[static_cast<int>(source)]; }
std::string_view to_string(ColumnShown shown) { return kShownNames[static_cast<int>(shown)]; }

}  // namespace kprof
