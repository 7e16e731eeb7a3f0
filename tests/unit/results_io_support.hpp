// What the tests of result files and tables share: a Results taken apart into its pieces, and
// values that are hard to write and read back (NaN, infinities, template and quoted kernel names).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kprof/results.hpp"

namespace kprof::testing {

inline const double kNan = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();
inline const std::string kTemplateKernel = "void gemm<float, 128>(float const*, int)";
inline const std::string kNastyKernel = "k\"quoted\", with\nnewline";

// A Results taken apart, so tests can change one piece and build again.
struct Parts {
  SessionInfo session;
  Sweep sweep;
  std::vector<Record> records;
  std::vector<Sample> samples;
  std::vector<Row> rows;

  Results make() const { return Results(session, sweep, records, samples, rows); }
};

inline SessionInfo full_session() {
  SessionInfo s;
  s.gpu = "NVIDIA H200";
  s.device = 0;
  s.host = "node-7";
  s.compute_clock_khz = 1980000;
  s.memory_clock_khz = 3201000;
  s.backend = "cupti-activity";
  s.replay_mode = "kernel";
  s.cache_control = "all";
  s.clock_control = "none";
  s.passes = 2;
  s.runs = 3;
  s.metrics = {"gpu__time_duration.sum", "dram__bytes.sum"};
  s.kprof_version = "0.1.0";
  s.cuda_driver_version = "13.0";
  s.cuda_runtime_version = "12.9";
  s.cupti_version = "26";
  s.started_at = "2026-11-30T06:00:00Z";
  return s;
}

inline Record record(std::size_t config, int run, std::string kernel, int index, double value) {
  return {config, run, "outer/inner", std::move(kernel), index, "gpu__time_duration.sum",
          value,  "ns"};
}

inline Row row(std::string annotation, std::size_t config, std::string metric, double mean) {
  Row r;
  r.annotation = std::move(annotation);
  r.metric = std::move(metric);
  r.config = config;
  r.kernel = kTemplateKernel;
  r.mean = mean;
  r.stddev = mean / 100;
  r.min = mean * 0.98;
  r.max = mean * 1.02;
  r.median = mean;
  r.num_runs = 3;
  r.ci95_lower = mean * 0.97;
  r.ci95_upper = mean * 1.03;
  r.rel_stddev_pct = 1;
  r.stable = true;
  r.unit = "ns";
  r.normalization_value = kNan;
  r.geomean = mean;
  return r;
}

// Int, double and string parameters (with a NaN, an infinity and CSV-hostile text); NaN
// values; unset stability; per-kernel, derived and normalized data; doubles that only
// round-trip when written with every digit they need.
}  // namespace kprof::testing
