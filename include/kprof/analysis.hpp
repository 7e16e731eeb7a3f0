// What limits a region: Nsight Compute's Speed-of-Light verdict, the busiest unit, occupancy and
// its limiter, and the roofline, for every (annotation, config) of a profile that measured
// set:analysis. Pure arithmetic over Results: works on saved results, without a GPU.
//
// The verdict follows Nsight Compute's SOLBottleneck rule on the same two counters, so that both
// tools say the same of a kernel: SM throughput (sm__throughput) and memory throughput
// (gpu__compute_memory_throughput), each in % of its sustained peak,
//   both below 80% and both below 60%    latency ("Small Grid" under one wave per SM, else
//                                        "Latency Issue")
//   both below 80%, 10 points or more apart   bound by the higher ("High Compute Throughput",
//                                        "High Memory Throughput")
//   both below 80%, closer than 10 points     "Balanced Throughput", bound by the higher
//   either at 80% or more                "High Throughput", bound by the higher
// The roofline follows Nsight Compute's tensor roofline: the tensor path's math ops per second
// against their peak (the counter's peak_sustained at the measured clock), and DRAM bytes per
// second against DRAM's peak. FLOP outside the tensor cores (FP32, FP64, FP16) are counted by
// SASS instruction counters (set:flop), which need the code instrumented: Nsight Compute does so
// (Tool.NCU), and kprof in one more call of each config where CUPTI 13.5 and nvdisasm are found;
// CUPTI's range profiler reads them as 0. Where they were measured, each precision has its own
// roof, and a region's point stands for the precision closest to its peak.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/results.hpp"

namespace kprof {

// The analysis of one (annotation, config); of one kernel too with per_kernel=True. Every
// number is NaN where its metrics were not measured, but the tensor work, 0 without any; bound
// and verdict are empty where SM or memory throughput were not measured.
struct RegionAnalysis {
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::string annotation;
  std::size_t config = 0;
  std::string kernel;
  int kernel_index = -1;
  // The region as people read it: "matmul (n=4096)", per kernel "matmul (n=4096) kernel 1".
  std::string region;
  std::string bound;    // "compute", "memory" or "latency"
  std::string verdict;  // Nsight Compute's name: "High Memory Throughput", "Small Grid", ...
  double sm_throughput_pct = nan;
  double memory_throughput_pct = nan;
  double dram_throughput_pct = nan;
  std::string limiting_unit;  // the busiest unit: "DRAM", "L2", "L1/TEX", "FMA pipe", ...
  double limiting_unit_pct = nan;
  double achieved_occupancy_pct = nan;
  // NaN, and occupancy_limiter empty, where launch statistics were not measured (range replay).
  double theoretical_occupancy_pct = nan;
  std::string occupancy_limiter;  // "registers", "shared memory", "block size", "blocks per SM"
  double waves_per_sm = nan;
  double sm_count = nan;
  // The tensor cores' math ops per second, and their peak at the measured clock.
  double tensor_tflops = 0;
  double tensor_peak_tflops = nan;
  // FLOP per second outside the tensor cores and their peaks (set:flop); NaN unmeasured.
  double fp32_tflops = nan;
  double fp32_peak_tflops = nan;
  double fp64_tflops = nan;
  double fp64_peak_tflops = nan;
  double fp16_tflops = nan;
  double fp16_peak_tflops = nan;
  // The precision of the roofline point: "tensor", "fp32", "fp64" or "fp16", of those that did
  // work the one closest to its peak; "" when none did (or none was measured).
  std::string precision;
  double achieved_tflops = 0;  // of `precision`
  double peak_tflops = nan;    // of `precision`
  double dram_tbs = nan;
  double dram_peak_tbs = nan;
  // FLOP per DRAM byte (achieved_tflops / dram_tbs); NaN without FLOP or traffic.
  double arithmetic_intensity = nan;
  // The roofline at that intensity: min(peak_tflops, intensity x DRAM peak).
  double roofline_tflops = nan;
  std::string advice;  // a sentence per finding, the verdict's first
};

// The metrics set:analysis holds and analyze() reads, launch statistics included.
const std::vector<std::string>& analysis_metrics();
// The metrics set:flop holds, which analyze() reads where measured: the duration, the SASS
// thread instructions of each FP32, FP64 and FP16 class and each precision's FMA peak.
const std::vector<std::string>& flop_metrics();

// The analysis of every (annotation, config) of `results`, in the order of its rows. Throws
// OptionError (option "metrics") naming the metrics of set:analysis the results lack (launch
// statistics may be missing in range replay, which cannot measure them), or values that
// normalize_against turned into ratios.
std::vector<RegionAnalysis> analyze(const Results& results);

// How a person reads a region's analysis, in `kprof report --explain` and the HTML report: the
// columns after the region's name, and each region's cells under them ("-" for what was not
// measured). Numeric columns align right.
struct AnalysisHeading {
  std::string_view text;  // "SM %"
  bool numeric;
};
std::span<const AnalysisHeading> analysis_headings();
std::vector<std::string> analysis_cells(const RegionAnalysis& a);

// The analysis as an aligned text table and the advice under it, as `kprof report --explain`
// prints it.
std::string analysis_text(const std::vector<RegionAnalysis>& analysis);

}  // namespace kprof
