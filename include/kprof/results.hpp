// What a profile returns: raw records, per-run samples and aggregated rows, with the context
// they were measured in. Written to and read back from JSON and CSV exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kprof/options.hpp"
#include "kprof/sweep.hpp"

namespace kprof {

// Where and how a profile ran. The same for every row of one profile.
struct SessionInfo {
  std::string gpu;                     // device name, "NVIDIA H200"
  int device = -1;                     // CUDA ordinal of the profiled device
  std::string host;                    // host name
  std::int64_t compute_clock_khz = 0;  // rated peak SM clock (device attribute), as nsight-python
  std::int64_t memory_clock_khz = 0;   // rated peak memory clock (device attribute)
  std::string backend;                 // "cupti-activity"
  std::string replay_mode;             // "kernel", "range" or "application"
  std::string cache_control;           // "all" or "none"
  std::string clock_control;           // "none" or "base"
  int passes = 1;                      // passes per measurement (1 for durations)
  int runs = 1;                        // runs per config asked for
  std::vector<std::string> metrics;    // measured metrics, in order
  std::string kprof_version;
  std::string cuda_driver_version;  // "13.0"
  std::string cuda_runtime_version;
  std::string cupti_version;  // CUPTI API version number
  std::string started_at;     // ISO 8601, UTC
  // Measurement conditions (docs/conditions.md).
  std::string thermal_mode;  // "auto", "manual" or "off"
  // Where the runs' SM clock (RunInfo::sm_clock_khz) comes from: "counters" (the counter
  // gpc__cycles_elapsed.avg.per_second of the run's kernels), "nvml" (NVML's reading after the
  // run), "probe kernel" (where NVML cannot read it: a kernel that counts SM cycles against the
  // GPU's timer after the run), or "" when nothing could read it.
  std::string clock_source;
  // Wall time spent inside CUPTI's range profiler during the profile: its calls (enable,
  // sessions, passes, decoding, evaluation) and the launch calls in which it replays kernels.
  // What counters cost at the least; NaN without counters.
  double profiler_seconds = std::numeric_limits<double>::quiet_NaN();
  // Share of compute_clock_khz below which a run's measured SM clock counts as throttled.
  double throttle_threshold = std::numeric_limits<double>::quiet_NaN();
  // The stopping rule; stop_rel_half_width is NaN (and runs > 0) when every config ran `runs`
  // times, and runs is 0 when the rule decided.
  double stop_rel_half_width = std::numeric_limits<double>::quiet_NaN();
  int stop_min_runs = 0;
  int stop_max_runs = 0;
  double stop_time_budget_s = std::numeric_limits<double>::quiet_NaN();
  // What profiling added to a call of the function: over the configs, the median of (wall time
  // per profiled run, profiled_seconds_per_run - the config's unprofiled call), and of the
  // unprofiled calls. NaN when no unprofiled call was made (disclose_overhead=False and
  // warmup < 2).
  double overhead_seconds_per_run = std::numeric_limits<double>::quiet_NaN();
  double unprofiled_seconds_per_run = std::numeric_limits<double>::quiet_NaN();
  // The process's rank in its job, as its launcher set it (kprof/rank.hpp); 0 of 1 alone.
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string launcher = "none";
};

// The Record::kind of a kernel.
inline constexpr const char* kKernelKind = "kernel";

// One measured value of one kernel in one run: the raw data.
struct Record {
  std::size_t config = 0;
  int run = 0;
  std::string annotation;  // path of the region, "outer/inner" when nested
  std::string kernel;      // demangled kernel name
  int kernel_index = 0;    // launch order of the kernel inside the region in this run, from 0
  std::string metric;
  double value = 0;  // NaN when the run failed and failures were ignored
  std::string unit;
  // Where the kernel ran, from its activity record (durations in kernel replay): GPU start and
  // end in CUPTI's timestamps (ns) and its stream; -1 where the backend has none (counters).
  std::int64_t start_ns = -1;
  std::int64_t end_ns = -1;
  std::int64_t stream = -1;
  // What ran: "kernel", a copy with its direction ("memcpy HtoD", "memcpy DtoH", "memcpy DtoD",
  // "memcpy HtoH", "memcpy PtoP"), or "memset" (durations only, from CUPTI's memcpy and memset
  // records). A region's values are its kernels'; a region that launched none but copies or
  // memsets is measured by those (kprof::kKernelKind, is_copy_or_memset).
  std::string kind = kKernelKind;
  std::int64_t bytes = -1;  // bytes a copy or memset moved; -1 for a kernel
};

// One value per (annotation, config, run, metric) after kernels were combined and metrics
// derived; in per-kernel mode, one per kernel. nsight-python's profiled_data rows.
struct Sample {
  std::size_t config = 0;
  int run = 0;
  std::string annotation;
  std::string metric;
  double value = 0;
  std::string unit;
  std::string kernel;     // "k1|k2" when several kernels were combined
  int kernel_index = -1;  // per-kernel mode: the kernel's index in the region; else -1
};

// What happened around one run of the benchmark function: its time, the thermal guard's pause
// before it, and the GPU's state after it (NVML, or counters when they were collected).
struct RunInfo {
  std::size_t config = 0;
  int run = 0;
  double seconds = 0;  // wall time of the benchmark call
  double pause_s = 0;  // the thermal guard's pause before the run
  // SM clock (kHz): the mean of the run's kernels' clocks (counters), or the reading after the
  // run unless the GPU idled then (NVML, probe kernel); NaN when nothing could tell.
  double sm_clock_khz = std::numeric_limits<double>::quiet_NaN();
  double temperature_c = std::numeric_limits<double>::quiet_NaN();
  std::int64_t clock_event_reasons = -1;  // NVML clock event (throttle) reasons; -1 unknown
  // sm_clock_khz < throttle_threshold * compute_clock_khz; unset when either is unknown.
  std::optional<bool> throttled;
};

// How the runs of one config went: how many, and which rule stopped them.
struct ConfigInfo {
  std::size_t config = 0;
  int runs = 0;  // runs made (failed runs included)
  // "runs" (the fixed count), "precision" (the interval was tight enough), "max_runs",
  // "time_budget", or "error" (the sweep failed in this config).
  std::string stopped_by;
  double seconds = 0;  // wall time of the config, thermal pauses excluded
  // Wall time of the config's unprofiled call (after the profile, or its last warm-up call with
  // warmup >= 2): the function unprofiled, as RunInfo::seconds times it profiled. NaN when none
  // was made, or it failed.
  double unprofiled_seconds = std::numeric_limits<double>::quiet_NaN();
};

// One value of an info collector. Numbers are in `value`, anything else in `text` (Python
// objects as str(obj)); NaN and "" mean no value (the collector failed or returned nothing).
struct InfoValue {
  std::string name;
  std::string scope;  // "once", "config", "run" or "annotation"
  std::size_t config = 0;
  int run = -1;            // -1 for once and config scope
  std::string annotation;  // annotation scope: the annotation's path
  double value = std::numeric_limits<double>::quiet_NaN();
  std::string text;
};

// One instruction's warp samples of one stall reason, in a region of a config: set:source's
// sampling pass (one call of each config) saw the region's warps waiting there for that reason.
// Long form, one line per reason an instruction was sampled with; ProfileResults.
// source_dataframe() turns the reasons into columns.
struct SourceSample {
  std::size_t config = 0;
  std::string annotation;
  std::string kernel;          // the function, demangled as the records name kernels
  std::uint32_t cubin = 0;     // its module's code (CUPTI's CRC): kernels of one name differ
  std::int64_t pc_offset = 0;  // bytes from the function's start
  std::string sass;            // the instruction; empty where its module's code was not kept
  std::string file;            // its source file; empty without line information
  int line = 0;                // its source line; 0 without line information
  std::string reason;          // "long_scoreboard"; the "_not_issued" variants too
  double samples = 0;
};

// An info collector's column(s) in one row.
struct InfoStat {
  std::string name;
  // true: the collector gave numbers per config, run or annotation: statistics over the
  // row's values (<name>_Avg, _Std, _Min, _Max). false: one value (<name>): a once-scope
  // value, or the first value of a collector that gave text.
  bool numeric = false;
  double value = std::numeric_limits<double>::quiet_NaN();
  std::string text;
  double mean = std::numeric_limits<double>::quiet_NaN();
  double stddev = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
};

// Statistics of one (annotation, config, metric) over the runs; in per-kernel mode, one per
// kernel as well. Column names in comments are those of the DataFrame and the CSV.
struct Row {
  std::string annotation;          // Annotation
  std::string metric;              // Metric
  std::size_t config = 0;          // index into Results::sweep(); the parameter columns
  std::string kernel;              // Kernel
  int kernel_index = -1;           // KernelIndex (per-kernel mode only)
  double mean = 0;                 // AvgValue
  double stddev = 0;               // StdDev, sample (n-1); NaN for one run
  double min = 0;                  // MinValue
  double max = 0;                  // MaxValue
  double median = 0;               // Median
  std::size_t num_runs = 0;        // NumRuns: runs with a value (NaN runs excluded)
  double ci95_lower = 0;           // CI95_Lower: Student-t interval of the mean
  double ci95_upper = 0;           // CI95_Upper
  double rel_stddev_pct = 0;       // RelativeStdDevPct: 100 * stddev / |mean|
  std::optional<bool> stable;      // StableMeasurement: RSD < 2%; unset for one run
  std::string unit;                // Unit
  std::string normalized_against;  // Normalized: baseline annotation, empty when not
  double normalization_value = 0;  // NormalizationValue: the baseline's mean (NaN when not)
  double geomean = 0;              // Geomean over the configs of (annotation, metric)
  // Conditions of the config's runs.
  int runs_done = 0;       // RunsDone: runs made of this config (failed runs included)
  std::string stopped_by;  // StoppedBy: ConfigInfo::stopped_by
  double measured_clock_khz = std::numeric_limits<double>::quiet_NaN();  // MeasuredClock
  double temperature_c = std::numeric_limits<double>::quiet_NaN();       // Temperature
  // ThrottledRuns: runs flagged as throttled; NaN when no run's clock was measured.
  double throttled_runs = std::numeric_limits<double>::quiet_NaN();
  // ProfilingOverhead: seconds profiling added to a run of this config (ConfigInfo).
  double overhead_seconds = std::numeric_limits<double>::quiet_NaN();
  std::vector<InfoStat> info;  // info collector columns, in order of the collectors
};

// The text table of the rows as cells, before alignment: what Results::table() prints and the
// HTML report shows. Each row is in one unit, chosen from its mean; numbers to 4 significant
// digits; kernel names shortened to 40 characters.
struct TableCells {
  // Annotation, the sweep's parameters, Metric, Kernel, KernelIndex (per kernel only), Mean,
  // Median, StdDev, CI95, RSD%, Runs, Unit.
  std::vector<std::string> header;
  std::vector<bool> numeric;                   // per column: numbers (right-aligned)
  std::vector<std::vector<std::string>> rows;  // one per row of Results::rows(), in order
};

// One part of results merged from several processes (kprof/merge.hpp): the session it was
// measured in and the configs it holds, a contiguous range of the merged sweep.
struct ResultPart {
  SessionInfo session;
  std::size_t first_config = 0;
  std::size_t configs = 0;
};

class Results {
 public:
  Results() = default;
  Results(SessionInfo session, Sweep sweep, std::vector<Record> records,
          std::vector<Sample> samples, std::vector<Row> rows);
  Results(SessionInfo session, Sweep sweep, std::vector<Record> records,
          std::vector<Sample> samples, std::vector<Row> rows, std::vector<ConfigInfo> configs,
          std::vector<RunInfo> runs, std::vector<InfoValue> info,
          std::vector<ResultPart> parts = {}, std::vector<SourceSample> source = {});

  // The session of the profile; for merged results, the first part's.
  const SessionInfo& session() const noexcept { return session_; }
  // Merged results: the parts, in config order; empty for the results of one profile.
  const std::vector<ResultPart>& parts() const noexcept { return parts_; }
  // The session `config` was measured in: its part's, or session().
  const SessionInfo& session_of(std::size_t config) const;
  // The index in parts() of the part that holds `config`; 0 for the results of one profile.
  std::size_t part_of(std::size_t config) const;
  // The ranks the results come from, in order of first appearance: {session().rank} unless
  // merged.
  std::vector<int> ranks() const;
  // The name part of files written for these results: `base`, and "-rank<N>" when they come
  // from one rank of a job of several processes, so that two ranks never write one file.
  std::string file_tag(const std::string& base) const;
  const Sweep& sweep() const noexcept { return sweep_; }
  const std::vector<Record>& records() const noexcept { return records_; }
  const std::vector<Sample>& samples() const noexcept { return samples_; }
  const std::vector<Row>& rows() const noexcept { return rows_; }
  // Per config: runs made and the rule that stopped them (raw data).
  const std::vector<ConfigInfo>& config_info() const noexcept { return configs_; }
  // Per run: time, thermal pause, SM clock, temperature, throttle reasons (raw data).
  const std::vector<RunInfo>& run_info() const noexcept { return runs_; }
  // Every value the info collectors returned (raw data).
  const std::vector<InfoValue>& info() const noexcept { return info_; }
  // set:source's warp samples per instruction (empty unless profiled with set:source).
  const std::vector<SourceSample>& source() const noexcept { return source_; }
  bool empty() const noexcept { return rows_.empty(); }

  // Aggregates raw records and conditions with the rules of a profile under `options` (kernels
  // combined, metrics derived and normalized, statistics, conditions per row), without a GPU:
  // saved records analysed again under other options, or made-up records in tests.
  static Results aggregate(SessionInfo session, Sweep sweep, std::vector<Record> records,
                           const Options& options, std::vector<ConfigInfo> configs = {},
                           std::vector<RunInfo> runs = {}, std::vector<InfoValue> info = {});

  // An aligned text table of the rows, values scaled to readable units.
  std::string table() const;
  // The cells of that table.
  TableCells table_cells() const;
  // How many runs ran throttled (throttle_note below); empty when none did.
  std::string throttle_note() const;

  // One JSON document holding everything above. read_json(write_json(r)) == r. Reading
  // refuses (FormatError, naming the place) what no profile writes: items of a config the sweep
  // lacks, negative durations; so does read_csv.
  void write_json(const std::string& path) const;
  std::string to_json() const;
  static Results read_json(const std::string& path);
  static Results from_json(const std::string& text);
  // Results a reader outside the core built (the Python package's Parquet columns), checked as
  // read_json checks a document: a FormatError names `source` and the table, field and item.
  static Results checked(Results results, const std::string& source);

  // nsight-python's CSV layout: <prefix>profiled_data-<tag>.csv (samples) and
  // <prefix>processed_data-<tag>.csv (rows); also <prefix>records-<tag>.csv (raw records),
  // <prefix>session-<tag>.csv, and the raw conditions: <prefix>configs-<tag>.csv,
  // <prefix>runs-<tag>.csv and <prefix>info-<tag>.csv; '/', '\\' and control characters of
  // `tag` become '_', so that every file stays in the prefix's folder. Returns the paths written.
  std::vector<std::string> write_csv(const std::string& prefix, const std::string& tag) const;
  // Reads the files written by write_csv back (sets written before the conditions files
  // existed read with empty conditions tables).
  static Results read_csv(const std::string& prefix, const std::string& tag);
  // Every file write_csv(prefix, tag) may write (or remove: the parts file of merged results),
  // for a caller that must not replace existing files.
  static std::vector<std::string> csv_paths(const std::string& prefix, const std::string& tag);

  friend bool operator==(const Results&, const Results&);

 private:
  SessionInfo session_;
  Sweep sweep_;
  std::vector<Record> records_;
  std::vector<Sample> samples_;
  std::vector<Row> rows_;
  std::vector<ConfigInfo> configs_;
  std::vector<RunInfo> runs_;
  std::vector<InfoValue> info_;
  std::vector<SourceSample> source_;
  std::vector<ResultPart> parts_;
};

std::ostream& operator<<(std::ostream& os, const Results& r);

// "3 of 40 runs ran with the SM clock below 75% of the rated 1980 MHz": the runs flagged as
// throttled among those whose clock is known (NVBench's rule: RunInfo::throttled), for the
// messages of every front end; empty when none was.
std::string throttle_note(const SessionInfo& session, const std::vector<RunInfo>& runs);

// "values relative to a" (or "a, b": the baselines rows are normalized against), for the note
// every front end prints above a normalized table; empty when no row is normalized.
std::string normalization_note(const std::vector<Row>& rows);

// A region as kprof's reports name it: "matmul (n=4096)", and per kernel "matmul (n=4096)
// kernel 1" (kernel_index >= 0).
std::string region_name(const Results& results, const std::string& annotation, std::size_t config,
                        int kernel_index);

}  // namespace kprof
