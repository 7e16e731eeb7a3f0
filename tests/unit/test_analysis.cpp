// What limits a region: the verdict of Nsight Compute's Speed-of-Light rule, the busiest unit,
// occupancy and its limiter, the roofline, and what analyze() refuses, on made-up rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/metrics/sass_opcodes.hpp"
#include "kprof/analysis.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"
#include "kprof/results.hpp"

namespace {

using kprof::RegionAnalysis;
using Values = std::map<std::string, double>;

const std::string kSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
const std::string kMem = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
const std::string kDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
const std::string kWaves = "launch__waves_per_multiprocessor";

// A region of a kernel as a profile of set:analysis gives it: every metric at a plain value,
// `values` over them.
Values region(const Values& values) {
  Values all;
  for (const std::string& m : kprof::analysis_metrics()) all[m] = 1;
  all["launch__occupancy_limit_registers"] = 8;
  all["launch__occupancy_limit_shared_mem"] = 16;
  all["launch__occupancy_limit_warps"] = 8;
  all["launch__occupancy_limit_blocks"] = 32;
  all["sm__maximum_warps_per_active_cycle_pct"] = 100;
  all["sm__warps_active.avg.pct_of_peak_sustained_active"] = 95;
  all[kWaves] = 10;
  all["launch__sm_count"] = 132;
  for (const auto& [m, v] : values) all[m] = v;
  return all;
}

kprof::Results results_of(const std::vector<Values>& configs, const std::string& mode = "kernel") {
  kprof::SessionInfo session;
  session.replay_mode = mode;
  std::vector<kprof::Row> rows;
  std::vector<kprof::Value> points;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    points.push_back(static_cast<std::int64_t>(1024 << c));
    for (const auto& [metric, mean] : configs[c]) {
      kprof::Row row;
      row.annotation = "k";
      row.kernel = "kernel_" + std::to_string(c);
      row.config = c;
      row.metric = metric;
      row.mean = mean;
      rows.push_back(row);
      if (c == 0) session.metrics.push_back(metric);
    }
  }
  return kprof::Results(session, kprof::Sweep().axis("n", points), {}, {}, rows);
}

RegionAnalysis analyze_one(const Values& values) {
  const std::vector<RegionAnalysis> a = kprof::analyze(results_of({region(values)}));
  EXPECT_EQ(a.size(), 1u);
  return a.at(0);
}

TEST(Analysis, MemoryBoundBelowEightyIsHighMemoryThroughputNamingTheBusiestUnit) {
  const RegionAnalysis a = analyze_one({{kSm, 30}, {kMem, 72}, {kDram, 72}});
  EXPECT_EQ(a.bound, "memory");
  EXPECT_EQ(a.verdict, "High Memory Throughput");
  EXPECT_EQ(a.limiting_unit, "DRAM");
  EXPECT_DOUBLE_EQ(a.limiting_unit_pct, 72);
  EXPECT_EQ(
      a.advice.rfind("Memory-bound at 72% of peak (DRAM busiest at 72%): move fewer bytes", 0), 0u)
      << a.advice;
}

TEST(Analysis, AtEightyPercentOrMoreEitherWayIsHighThroughputBoundByTheHigher) {
  EXPECT_EQ(analyze_one({{kSm, 30}, {kMem, 86}}).verdict, "High Throughput");
  EXPECT_EQ(analyze_one({{kSm, 30}, {kMem, 86}}).bound, "memory");
  const RegionAnalysis compute = analyze_one({{kSm, 91}, {kMem, 85}});
  EXPECT_EQ(compute.verdict, "High Throughput");
  EXPECT_EQ(compute.bound, "compute");
}

TEST(Analysis, TenPointsApartIsBoundByTheHigherCloserIsBalanced) {
  const RegionAnalysis compute = analyze_one({{kSm, 75}, {kMem, 40}});
  EXPECT_EQ(compute.verdict, "High Compute Throughput");
  EXPECT_EQ(compute.bound, "compute");
  const RegionAnalysis balanced = analyze_one({{kSm, 70}, {kMem, 65}});
  EXPECT_EQ(balanced.verdict, "Balanced Throughput");
  EXPECT_EQ(balanced.bound, "compute");
  EXPECT_NE(balanced.advice.find("memory is close behind at 65%"), std::string::npos);
  // Exactly 10 points apart is no longer balanced, as in Nsight Compute.
  EXPECT_EQ(analyze_one({{kSm, 65}, {kMem, 75}}).verdict, "High Memory Throughput");
}

TEST(Analysis, BothUnderSixtyIsLatencyASmallGridWhenUnderOneWave) {
  const RegionAnalysis small = analyze_one({{kSm, 5}, {kMem, 3}, {kWaves, 0.4}});
  EXPECT_EQ(small.bound, "latency");
  EXPECT_EQ(small.verdict, "Small Grid");
  EXPECT_NE(small.advice.find("0.4 waves per SM, the grid is too small for 132 SMs"),
            std::string::npos)
      << small.advice;
  const RegionAnalysis latency = analyze_one({{kSm, 45}, {kMem, 59}, {kWaves, 3}});
  EXPECT_EQ(latency.bound, "latency");
  EXPECT_EQ(latency.verdict, "Latency Issue");
}

TEST(Analysis, TheSmallestOccupancyLimitNamesTheLimiterTiesNameBoth) {
  const RegionAnalysis regs =
      analyze_one({{"launch__occupancy_limit_registers", 2},
                   {"sm__maximum_warps_per_active_cycle_pct", 25},
                   {"sm__warps_active.avg.pct_of_peak_sustained_active", 24}});
  EXPECT_EQ(regs.occupancy_limiter, "registers");
  EXPECT_NE(regs.advice.find("Registers limit occupancy to 25% of the SM's warps."),
            std::string::npos)
      << regs.advice;
  // region() puts registers and warps (block size) at 8 blocks each.
  const RegionAnalysis tie = analyze_one({});
  EXPECT_EQ(tie.occupancy_limiter, "registers and block size");
  // At 80% or more theoretical occupancy, Nsight Compute says nothing of it; nor does kprof.
  EXPECT_EQ(tie.advice.find("limit occupancy"), std::string::npos);
}

TEST(Analysis, AchievedOccupancyTenPointsUnderTheoreticalIsAFinding) {
  const RegionAnalysis a = analyze_one({{"sm__warps_active.avg.pct_of_peak_sustained_active", 60}});
  EXPECT_NE(a.advice.find("Achieved occupancy 60% is under the theoretical 100%"),
            std::string::npos)
      << a.advice;
  const RegionAnalysis close =
      analyze_one({{"sm__warps_active.avg.pct_of_peak_sustained_active", 91}});
  EXPECT_EQ(close.advice.find("Achieved occupancy"), std::string::npos);
}

TEST(Analysis, TheRooflineOfTensorWorkIsBoundByDramAtLowIntensity) {
  const std::string t = "sm__ops_path_tensor_src_";
  Values v = {{t + "fp16.sum.per_second", 300e12},
              {t + "bf16_dst_fp32.sum.per_second", 100e12},
              {t + "tf32_dst_fp32.sum.per_second", 0},
              {t + "fp16.sum.peak_sustained_elapsed.per_second", 990e12},
              {"dram__bytes.sum.per_second", 2e12},
              {"dram__bytes.sum.peak_sustained_elapsed.per_second", 4.8e12}};
  const RegionAnalysis a = analyze_one(v);
  EXPECT_EQ(a.precision, "tensor");
  EXPECT_DOUBLE_EQ(a.tensor_tflops, 400);  // every source counts
  EXPECT_DOUBLE_EQ(a.achieved_tflops, 400);
  EXPECT_DOUBLE_EQ(a.peak_tflops, 990);
  EXPECT_DOUBLE_EQ(a.dram_tbs, 2);
  EXPECT_DOUBLE_EQ(a.arithmetic_intensity, 200);
  EXPECT_DOUBLE_EQ(a.roofline_tflops, 960);  // 200 FLOP/B x 4.8 TB/s, under the 990 roof
  EXPECT_NE(a.advice.find("The tensor work runs at 41.7% of the roofline at 200 FLOP/byte."),
            std::string::npos)
      << a.advice;
}

TEST(Analysis, WithoutTensorWorkThereIsNoRooflinePoint) {
  Values v;
  for (const char* t : {"fp16", "bf16_dst_fp32", "tf32_dst_fp32"})
    v[std::string("sm__ops_path_tensor_src_") + t + ".sum.per_second"] = 0;
  const RegionAnalysis a = analyze_one(v);
  EXPECT_EQ(a.precision, "");
  EXPECT_DOUBLE_EQ(a.achieved_tflops, 0);
  EXPECT_TRUE(std::isnan(a.arithmetic_intensity));
  EXPECT_TRUE(std::isnan(a.roofline_tflops));
  EXPECT_EQ(a.advice.find("roofline"), std::string::npos);
}

// set:flop's counts: FP32 FLOP are FADD + FMUL + 2 FFMA thread instructions over the duration,
// against twice the FFMA peak, as Nsight Compute's single-precision roofline counts them.
using kprof::detail::flop_metric;
using kprof::detail::flop_peak_metric;
using kprof::detail::FlopClass;

// A region of set:analysis and set:flop without tensor or FP work, 1 ms long: `values` over it.
Values flop_region(const Values& values) {
  Values v = {{"gpu__time_duration.sum", 1e6},
              {"dram__bytes.sum.per_second", 1e12},
              {"dram__bytes.sum.peak_sustained_elapsed.per_second", 4.8e12}};
  for (const char* t : {"fp16", "bf16_dst_fp32", "tf32_dst_fp32"})
    v[std::string("sm__ops_path_tensor_src_") + t + ".sum.per_second"] = 0;
  for (const std::string& m : kprof::flop_metrics())
    if (m != "gpu__time_duration.sum") v[m] = 0;
  for (const auto& [m, value] : values) v[m] = value;
  return v;
}

Values counts(FlopClass add, double a, FlopClass mul, double m, FlopClass fma, double f,
              double fma_peak) {
  return {{std::string(flop_metric(add)), a},
          {std::string(flop_metric(mul)), m},
          {std::string(flop_metric(fma)), f},
          {flop_peak_metric(fma), fma_peak}};
}

Values merged(Values a, const Values& b) {
  a.insert(b.begin(), b.end());
  return a;
}

TEST(Analysis, FlopOutsideTheTensorCoresCountAnFmaTwiceAgainstEachPrecisionsPeak) {
  // 23e9 FP32 FLOP in 1 ms: 23 TFLOP/s; 2e9 FP64 FLOP: 2 TFLOP/s.
  const Values fp32 =
      counts(FlopClass::fadd, 1e9, FlopClass::fmul, 2e9, FlopClass::ffma, 10e9, 16.9e12);
  const Values fp64 = counts(FlopClass::dadd, 0, FlopClass::dmul, 0, FlopClass::dfma, 1e9, 8.45e12);
  const RegionAnalysis a = analyze_one(flop_region(merged(fp32, fp64)));
  EXPECT_DOUBLE_EQ(a.fp32_tflops, 23);
  EXPECT_DOUBLE_EQ(a.fp32_peak_tflops, 33.8);
  EXPECT_DOUBLE_EQ(a.fp64_tflops, 2);
  EXPECT_DOUBLE_EQ(a.fp64_peak_tflops, 16.9);
  EXPECT_DOUBLE_EQ(a.fp16_tflops, 0);  // measured: no half-precision work
  // FP32 runs at 68% of its peak, FP64 at 12%: the point is FP32's.
  EXPECT_EQ(a.precision, "fp32");
  EXPECT_DOUBLE_EQ(a.achieved_tflops, 23);
  EXPECT_DOUBLE_EQ(a.peak_tflops, 33.8);
  EXPECT_DOUBLE_EQ(a.arithmetic_intensity, 23);
  EXPECT_DOUBLE_EQ(a.roofline_tflops, 33.8);  // 23 FLOP/B x 4.8 TB/s is above the roof
  EXPECT_NE(a.advice.find("The fp32 work runs at 68% of the roofline at 23 FLOP/byte."),
            std::string::npos)
      << a.advice;
  EXPECT_NE(kprof::analysis_text({a}).find("23 fp32"), std::string::npos);
}

TEST(Analysis, AHalfPrecisionInstructionDoesTwiceTheFlopOfItsSingleForm) {
  // HADD2, HMUL2: 2 FLOP; HFMA2: 4; the peak 4 x HFMA's (Nsight Compute's half roofline).
  const RegionAnalysis a = analyze_one(
      flop_region(counts(FlopClass::hadd, 1e9, FlopClass::hmul, 1e9, FlopClass::hfma, 1e9, 10e12)));
  EXPECT_DOUBLE_EQ(a.fp16_tflops, 8);  // (2 + 2 + 4) x 1e9 FLOP in 1 ms
  EXPECT_DOUBLE_EQ(a.fp16_peak_tflops, 40);
  EXPECT_EQ(a.precision, "fp16");
}

TEST(Analysis, ThePrecisionClosestToItsPeakHoldsThePointTensorWorkIncluded) {
  const std::string t = "sm__ops_path_tensor_src_fp16.sum.";
  const Values tensor = {{t + "per_second", 100e12},
                         {t + "peak_sustained_elapsed.per_second", 990e12}};
  // 20 TFLOP/s of 33.8: 59%, against the tensor cores' 10%.
  Values v = merged(counts(FlopClass::fadd, 0, FlopClass::fmul, 0, FlopClass::ffma, 10e9, 16.9e12),
                    tensor);
  EXPECT_EQ(analyze_one(flop_region(v)).precision, "fp32");
  v = merged(counts(FlopClass::fadd, 0, FlopClass::fmul, 0, FlopClass::ffma, 1e9, 16.9e12), tensor);
  EXPECT_EQ(analyze_one(flop_region(v)).precision, "tensor");  // 2 TFLOP/s: 6%
  // A precision without a measured peak cannot be compared with one that has it.
  v = merged(counts(FlopClass::dadd, 0, FlopClass::dmul, 0, FlopClass::dfma, 400e9, std::nan("")),
             tensor);
  EXPECT_EQ(analyze_one(flop_region(v)).precision, "tensor");
  // Without any peak, the most FLOP.
  v = counts(FlopClass::fadd, 0, FlopClass::fmul, 0, FlopClass::ffma, 1e9, std::nan(""));
  v = merged(v, counts(FlopClass::dadd, 0, FlopClass::dmul, 0, FlopClass::dfma, 2e9, std::nan("")));
  EXPECT_EQ(analyze_one(flop_region(v)).precision, "fp64");
}

TEST(Analysis, NoDurationNoFlopPerSecond) {
  const Values fp32 = counts(FlopClass::fadd, 1e9, FlopClass::fmul, 0, FlopClass::ffma, 0, 16.9e12);
  const RegionAnalysis a = analyze_one(flop_region(merged({{"gpu__time_duration.sum", 0}}, fp32)));
  EXPECT_TRUE(std::isnan(a.fp32_tflops));
  EXPECT_EQ(a.precision, "");
  EXPECT_EQ(a.advice.find("inf"), std::string::npos) << a.advice;
}

TEST(Analysis, PartOfTheFlopSetIsRefusedNamingTheRest) {
  Values v = region({{std::string(flop_metric(FlopClass::ffma)), 1e9}});
  try {
    kprof::analyze(results_of({v}));
    FAIL() << "no error";
  } catch (const kprof::OptionError& e) {
    EXPECT_NE(std::string(e.what()).find(flop_metric(FlopClass::fadd)), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("all of set:flop or none of it"), std::string::npos);
  }
}

TEST(Analysis, TheFlopSetHoldsEveryClassAndPeakAnalyzeReads) {
  const std::vector<std::string>& m = kprof::flop_metrics();
  EXPECT_EQ(m.front(), "gpu__time_duration.sum");
  EXPECT_EQ(m.size(), 13u);  // the duration, 3 precisions x (add, mul, fma, fma peak)
  for (FlopClass c :
       {FlopClass::fadd, FlopClass::fmul, FlopClass::ffma, FlopClass::dadd, FlopClass::dmul,
        FlopClass::dfma, FlopClass::hadd, FlopClass::hmul, FlopClass::hfma})
    EXPECT_NE(std::find(m.begin(), m.end(), flop_metric(c)), m.end()) << flop_metric(c);
  for (FlopClass c : {FlopClass::ffma, FlopClass::dfma, FlopClass::hfma})
    EXPECT_NE(std::find(m.begin(), m.end(), flop_peak_metric(c)), m.end()) << flop_peak_metric(c);
  EXPECT_EQ(flop_peak_metric(FlopClass::dfma),
            "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained_elapsed.per_second");
}

TEST(Analysis, ResultsWithoutTheSetNameWhatIsMissing) {
  kprof::Results durations = results_of({{{"gpu__time_duration.sum", 1000}}});
  try {
    kprof::analyze(durations);
    FAIL() << "no error";
  } catch (const kprof::OptionError& e) {
    EXPECT_EQ(e.option(), "metrics");
    EXPECT_NE(e.value().find(kSm), std::string::npos) << e.value();
    EXPECT_NE(e.value().find("and 21 more of its 25 metrics"), std::string::npos) << e.value();
    EXPECT_NE(e.valid().find("set:analysis"), std::string::npos);
  }
}

TEST(Analysis, RangeReplayNeedsNoLaunchStatistics) {
  Values counters;
  for (const auto& [m, v] : region({{kSm, 20}, {kMem, 70}}))
    if (!kprof::metrics::is_launch_metric(m)) counters[m] = v;
  const auto a = kprof::analyze(results_of({counters}, "range"));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].verdict, "High Memory Throughput");
  EXPECT_TRUE(std::isnan(a[0].theoretical_occupancy_pct));
  EXPECT_EQ(a[0].occupancy_limiter, "");
  EXPECT_THROW(kprof::analyze(results_of({counters}, "kernel")), kprof::OptionError);
}

TEST(Analysis, NormalizedRowsAreRefused) {
  kprof::Results r = results_of({region({})});
  std::vector<kprof::Row> rows = r.rows();
  rows[0].normalized_against = "baseline";
  const kprof::Results normalized(r.session(), r.sweep(), {}, {}, rows);
  EXPECT_THROW(kprof::analyze(normalized), kprof::OptionError);
}

TEST(Analysis, OneAnalysisPerConfigInRowOrderAndTheTextNamesEach) {
  const kprof::Results r =
      results_of({region({{kSm, 5}, {kMem, 3}, {kWaves, 0.2}}), region({{kSm, 30}, {kMem, 90}})});
  const auto a = kprof::analyze(r);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].config, 0u);
  EXPECT_EQ(a[0].kernel, "kernel_0");
  EXPECT_EQ(a[1].verdict, "High Throughput");
  const std::string text = kprof::analysis_text(a);
  EXPECT_NE(text.find("Bound"), std::string::npos) << text;
  EXPECT_NE(text.find("k (n=1024): Small Grid\n"), std::string::npos) << text;
  EXPECT_NE(text.find("k (n=2048): High Throughput\n"), std::string::npos) << text;
}

// The recording of tests/python/test_gpu_analysis.py on the H200: Nsight Compute's
// SOLBottleneck rule gave these verdicts to the same kernels (docs/validation.md).
TEST(Analysis, TheH200RecordingGivesNsightComputesVerdicts) {
  const kprof::Results r =
      kprof::Results::read_json(std::string(KPROF_TEST_DATA) + "/h200-analysis-2026-12-03.json");
  std::map<std::string, std::string> verdicts;
  for (const RegionAnalysis& a : kprof::analyze(r)) verdicts[a.annotation] = a.verdict;
  EXPECT_EQ(verdicts, (std::map<std::string, std::string>{{"matmul16", "High Throughput"},
                                                          {"registers", "High Throughput"},
                                                          {"scale", "High Throughput"},
                                                          {"small_grid", "Small Grid"},
                                                          {"softmax", "Latency Issue"}}));
}

// set:analysis and set:flop of an fp32 and an fp64 scale over 2^26 elements on the H200, counted
// by Nsight Compute (Tool.NCU) and by kprof in the process (CUPTI 13.5): each a precision of its
// own, at its own peak.
TEST(Analysis, TheH200FlopRecordingsGiveEachScaleItsPrecision) {
  for (const char* file : {"/h200-ncu-flop-2026-12-04.json", "/h200-flop-2026-12-05.json"}) {
    SCOPED_TRACE(file);
    const kprof::Results r = kprof::Results::read_json(std::string(KPROF_TEST_DATA) + file);
    std::map<std::string, RegionAnalysis> by_name;
    for (const RegionAnalysis& a : kprof::analyze(r)) by_name[a.annotation] = a;
    const RegionAnalysis &f32 = by_name.at("scale32"), &f64 = by_name.at("scale64");
    EXPECT_EQ(f32.precision, "fp32");
    EXPECT_EQ(f64.precision, "fp64");
    EXPECT_DOUBLE_EQ(f32.achieved_tflops, f32.fp32_tflops);
    EXPECT_EQ(f32.fp64_tflops, 0);                                     // counted: no fp64 work
    EXPECT_NEAR(f32.fp32_peak_tflops / f64.fp64_peak_tflops, 2, 0.1);  // 128 and 64 FMA a cycle
    EXPECT_GT(f32.roofline_tflops, 0);
    EXPECT_NE(f32.advice.find("The fp32 work runs at"), std::string::npos) << f32.advice;
  }
}

TEST(Analysis, WithoutBothThroughputsThereIsNoVerdict) {
  // Every run of the region failed: NaN means, no made-up "Balanced Throughput".
  const double nan = std::nan("");
  const RegionAnalysis a = analyze_one({{kSm, nan}, {kMem, nan}});
  EXPECT_EQ(a.verdict, "");
  EXPECT_EQ(a.bound, "");
  EXPECT_EQ(a.advice.find("nan"), std::string::npos) << a.advice;
  EXPECT_EQ(a.advice.find("-bound"), std::string::npos) << a.advice;
  const kprof::Results r = results_of({region({{kSm, nan}, {kMem, nan}})});
  EXPECT_NE(kprof::analysis_text(kprof::analyze(r)).find("no verdict (not measured)"),
            std::string::npos);
}

}  // namespace
