// What a profile returns: raw records, per-run samples and aggregated rows, with the context
// they were measured in. Written to and read back from JSON and CSV exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

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
  std::string replay_mode;             // "kernel" or "range"
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
};

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
};

class Results {
 public:
  Results() = default;
  Results(SessionInfo session, Sweep sweep, std::vector<Record> records,
          std::vector<Sample> samples, std::vector<Row> rows);

  const SessionInfo& session() const noexcept { return session_; }
  const Sweep& sweep() const noexcept { return sweep_; }
  const std::vector<Record>& records() const noexcept { return records_; }
  const std::vector<Sample>& samples() const noexcept { return samples_; }
  const std::vector<Row>& rows() const noexcept { return rows_; }
  bool empty() const noexcept { return rows_.empty(); }

  // An aligned text table of the rows, values scaled to readable units.
  std::string table() const;

  // One JSON document holding everything above. read_json(write_json(r)) == r.
  void write_json(const std::string& path) const;
  std::string to_json() const;
  static Results read_json(const std::string& path);
  static Results from_json(const std::string& text);

  // nsight-python's CSV layout: <prefix>profiled_data-<tag>.csv (samples) and
  // <prefix>processed_data-<tag>.csv (rows); also <prefix>records-<tag>.csv (raw records).
  // Returns the paths written.
  std::vector<std::string> write_csv(const std::string& prefix, const std::string& tag) const;
  // Reads the three files written by write_csv back.
  static Results read_csv(const std::string& prefix, const std::string& tag);

  friend bool operator==(const Results&, const Results&);

 private:
  SessionInfo session_;
  Sweep sweep_;
  std::vector<Record> records_;
  std::vector<Sample> samples_;
  std::vector<Row> rows_;
};

std::ostream& operator<<(std::ostream& os, const Results& r);

}  // namespace kprof
