#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/results/aggregate.hpp"
#include "kprof/errors.hpp"

using namespace kprof;
using namespace kprof::detail;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kTime(kDurationMetric);
const std::string kThroughput = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr double kT2 = 4.3026527297494618;  // t(0.975, 2)

Record rec(std::size_t config, int run, std::string annotation, std::string kernel,
           int kernel_index, double value, std::string metric = kTime, std::string unit = "ns") {
  return {config,
          run,
          std::move(annotation),
          std::move(kernel),
          kernel_index,
          std::move(metric),
          value,
          std::move(unit)};
}

// One single-kernel record per value, runs numbered from 0.
std::vector<Record> runs_of(std::size_t config, const std::string& annotation,
                            const std::vector<double>& values, const std::string& metric = kTime) {
  std::vector<Record> records;
  for (std::size_t run = 0; run < values.size(); ++run)
    records.push_back(
        rec(config, static_cast<int>(run), annotation, "kernel", 0, values[run], metric));
  return records;
}

std::vector<Record> concat(std::vector<std::vector<Record>> parts) {
  std::vector<Record> all;
  for (auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

Options with_metrics(std::vector<std::string> metrics) {
  Options o;
  o.metrics = std::move(metrics);
  return o;
}

const Row& find_row(const std::vector<Row>& rows, const std::string& annotation, std::size_t config,
                    const std::string& metric = kTime, int kernel_index = -1) {
  for (const Row& r : rows)
    if (r.annotation == annotation && r.config == config && r.metric == metric &&
        r.kernel_index == kernel_index)
      return r;
  throw std::runtime_error("no row " + annotation + "/" + std::to_string(config) + "/" + metric);
}

std::string describe(const Row& r) {
  return r.annotation + "/" + std::to_string(r.config) + "/" + r.metric +
         (r.kernel_index < 0 ? "" : "/" + std::to_string(r.kernel_index));
}

std::vector<std::string> describe(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& r : rows) out.push_back(describe(r));
  return out;
}

std::string message_of(const std::vector<Record>& records, const Options& options) {
  try {
    make_rows(make_samples(records, options), options);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

// --- combining kernels -------------------------------------------------------------------------

TEST(AggregateCombine, SingleKernelKeepsItsValueAndName) {
  const auto samples = make_samples({rec(3, 2, "outer/inner", "gemm", 0, 5.5)}, Options{});
  ASSERT_EQ(samples.size(), 1u);
  const Sample& s = samples[0];
  EXPECT_EQ(s.config, 3u);
  EXPECT_EQ(s.run, 2);
  EXPECT_EQ(s.annotation, "outer/inner");
  EXPECT_EQ(s.metric, kTime);
  EXPECT_DOUBLE_EQ(s.value, 5.5);
  EXPECT_EQ(s.unit, "ns");
  EXPECT_EQ(s.kernel, "gemm");
  EXPECT_EQ(s.kernel_index, -1);
}

TEST(AggregateCombine, SumAddsKernelsAndJoinsNamesInLaunchOrder) {
  const std::vector<Record> records{rec(0, 0, "a", "second", 1, 20), rec(0, 0, "b", "other", 0, 7),
                                    rec(0, 0, "a", "first", 0, 10), rec(0, 0, "a", "first", 2, 30)};
  Options o;
  o.combine = CombineKind::sum;
  const auto samples = make_samples(records, o);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].annotation, "a");
  EXPECT_DOUBLE_EQ(samples[0].value, 60);
  EXPECT_EQ(samples[0].kernel, "first|second");
  EXPECT_EQ(samples[1].annotation, "b");
  EXPECT_DOUBLE_EQ(samples[1].value, 7);
}

// As nsight-python: without a reduction a region must launch one kernel, whatever the metric
// (the duration, which sums, included).
TEST(AggregateCombine, DefaultRejectsSeveralKernelsOfAnyMetric) {
  for (const std::string& metric : {kTime, kThroughput}) {
    const std::vector<Record> records{rec(2, 1, "gemm", "k_main", 0, 80, metric, "%"),
                                      rec(2, 1, "gemm", "k_epilogue", 1, 40, metric, "%")};
    const Options o = with_metrics({metric});
    EXPECT_THROW(make_samples(records, o), MeasurementError);
    const std::string m = message_of(records, o);
    for (const char* part :
         {"More than one kernel is launched within the gemm annotation", "2 kernels", "config 2",
          "run 1", metric.c_str(), "k_main, k_epilogue", "combine_kernel_metrics=\"sum\"",
          "per_kernel=True", "replay_mode=\"range\""})
      EXPECT_NE(m.find(part), std::string::npos) << part << " not in: " << m;
  }
}

TEST(AggregateCombine, DefaultAcceptsOneKernelPerRegionInEveryRun) {
  const std::vector<Record> records{rec(0, 0, "a", "k", 0, 5), rec(0, 1, "a", "k", 0, 6),
                                    rec(0, 0, "b", "j", 0, 7)};
  const auto samples = make_samples(records, Options{});
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_DOUBLE_EQ(samples[1].value, 6);
}

// nsight-python's name for a range's kernel; the records keep the kernels the range ran.
TEST(AggregateCombine, RangeReplayNamesARegionsKernelRange) {
  const std::vector<Record> records{rec(0, 0, "fused", "add|mul", 0, 15)};
  Options o;
  o.replay_mode = ReplayMode::range;
  const Results r = aggregate(SessionInfo{}, Sweep(), records, o);
  ASSERT_EQ(r.rows().size(), 1u);
  EXPECT_EQ(r.rows()[0].kernel, "range");
  EXPECT_EQ(r.samples()[0].kernel, "range");
  EXPECT_EQ(r.records()[0].kernel, "add|mul");
  o.replay_mode = ReplayMode::kernel;
  EXPECT_EQ(aggregate(SessionInfo{}, Sweep(), records, o).rows()[0].kernel, "add|mul");
}

TEST(AggregateCombine, NamedKindsReduceAnyMetric) {
  // Launch order 3, 1, 2; given out of order.
  const std::vector<Record> records{rec(0, 0, "r", "b", 1, 1, kThroughput),
                                    rec(0, 0, "r", "c", 2, 2, kThroughput),
                                    rec(0, 0, "r", "a", 0, 3, kThroughput)};
  const std::vector<std::pair<CombineKind, double>> cases{
      {CombineKind::sum, 6}, {CombineKind::max, 3}, {CombineKind::min, 1}, {CombineKind::mean, 2}};
  for (const auto& [kind, expected] : cases) {
    Options o = with_metrics({kThroughput});
    o.combine = kind;
    const auto samples = make_samples(records, o);
    ASSERT_EQ(samples.size(), 1u);
    EXPECT_DOUBLE_EQ(samples[0].value, expected) << to_string(kind);
    EXPECT_EQ(samples[0].kernel, "a|b|c");
  }
}

TEST(AggregateCombine, CustomFoldsLeftInLaunchOrder) {
  const std::vector<Record> records{rec(0, 0, "r", "b", 1, 1), rec(0, 0, "r", "c", 2, 2),
                                    rec(0, 0, "r", "a", 0, 3)};
  Options o;
  o.combine = CombineKind::custom;
  o.combine_fn = [](double acc, double v) { return acc * 10 + v; };
  EXPECT_DOUBLE_EQ(make_samples(records, o)[0].value, 312);
}

TEST(AggregateCombine, NaNKernelMakesCombinedValueNaN) {
  const std::vector<Record> records{rec(0, 0, "r", "a", 0, 3), rec(0, 0, "r", "b", 1, kNaN)};
  for (CombineKind kind : {CombineKind::sum, CombineKind::max, CombineKind::min, CombineKind::mean,
                           CombineKind::custom}) {
    Options o;
    o.combine = kind;
    o.combine_fn = [](double a, double) { return a; };
    EXPECT_TRUE(std::isnan(make_samples(records, o)[0].value)) << to_string(kind);
  }
}

TEST(AggregateCombine, PerKernelKeepsEveryKernel) {
  Options o = with_metrics({kThroughput});
  o.per_kernel = true;
  const std::vector<Record> records{
      rec(0, 0, "r", "k0", 0, 10, kThroughput, "%"), rec(0, 0, "r", "k1", 1, 50, kThroughput, "%"),
      rec(0, 1, "r", "k0", 0, 12, kThroughput, "%"), rec(0, 1, "r", "k1", 1, 54, kThroughput, "%")};
  const auto samples = make_samples(records, o);
  ASSERT_EQ(samples.size(), 4u);
  EXPECT_EQ(samples[1].kernel, "k1");
  EXPECT_EQ(samples[1].kernel_index, 1);
  EXPECT_DOUBLE_EQ(samples[1].value, 50);

  const auto rows = make_rows(samples, o);
  ASSERT_EQ(describe(rows),
            (std::vector<std::string>{"r/0/" + kThroughput + "/0", "r/0/" + kThroughput + "/1"}));
  EXPECT_EQ(rows[0].kernel, "k0");
  EXPECT_DOUBLE_EQ(rows[0].mean, 11);
  EXPECT_EQ(rows[1].kernel, "k1");
  EXPECT_DOUBLE_EQ(rows[1].mean, 52);
  EXPECT_EQ(rows[1].num_runs, 2u);
  EXPECT_DOUBLE_EQ(rows[1].geomean, 52);
}

// --- derived metrics ---------------------------------------------------------------------------

TEST(AggregateDerive, AppendsEveryOutputWithUnitsAfterMeasuredSamples) {
  Options o = with_metrics({"dram__bytes.sum", kTime});
  std::vector<std::vector<double>> inputs_seen;
  o.derive = [&](const std::vector<double>& v, std::size_t config) {
    inputs_seen.push_back(v);
    return std::vector<DerivedValue>{{"bandwidth", v[0] / v[1], "B/ns"},
                                     {"config_plus_time", v[1] + config, ""}};
  };
  // Duration recorded before bytes: derive must still get them in options.metrics order.
  const std::vector<Record> records{rec(4, 0, "copy", "k", 0, 100, kTime, "ns"),
                                    rec(4, 0, "copy", "k", 0, 800, "dram__bytes.sum", "byte"),
                                    rec(4, 1, "copy", "k", 0, 200, kTime, "ns"),
                                    rec(4, 1, "copy", "k", 0, 1000, "dram__bytes.sum", "byte")};
  const auto samples = make_samples(records, o);
  EXPECT_EQ(inputs_seen, (std::vector<std::vector<double>>{{800, 100}, {1000, 200}}));
  ASSERT_EQ(samples.size(), 8u);
  EXPECT_EQ(samples[3].metric, "dram__bytes.sum");
  const Sample& bw = samples[4];
  EXPECT_EQ(bw.metric, "bandwidth");
  EXPECT_DOUBLE_EQ(bw.value, 8);
  EXPECT_EQ(bw.unit, "B/ns");
  EXPECT_EQ(bw.run, 0);
  EXPECT_EQ(bw.config, 4u);
  EXPECT_EQ(bw.annotation, "copy");
  EXPECT_EQ(bw.kernel, "k");
  EXPECT_EQ(samples[5].metric, "config_plus_time");
  EXPECT_DOUBLE_EQ(samples[5].value, 104);
  EXPECT_EQ(samples[5].unit, "");
  EXPECT_EQ(samples[6].metric, "bandwidth");
  EXPECT_DOUBLE_EQ(samples[6].value, 5);
  EXPECT_EQ(samples[6].run, 1);
}

TEST(AggregateDerive, RunWithNaNInputCountsAsFailedRun) {
  Options o;
  int calls = 0;
  o.derive = [&](const std::vector<double>& v, std::size_t) {
    ++calls;
    return std::vector<DerivedValue>{{"per_us", 1000 / v[0], "1/us"}, {"half", v[0] / 2, "ns"}};
  };
  const auto samples = make_samples(runs_of(0, "a", {100, kNaN, 200}), o);
  EXPECT_EQ(calls, 2);
  ASSERT_EQ(samples.size(), 3u + 6u);
  EXPECT_EQ(samples[5].run, 1);
  EXPECT_EQ(samples[5].metric, "per_us");
  EXPECT_TRUE(std::isnan(samples[5].value));
  EXPECT_EQ(samples[5].unit, "1/us");
  EXPECT_EQ(samples[6].metric, "half");
  EXPECT_TRUE(std::isnan(samples[6].value));

  const auto rows = make_rows(samples, o);
  const Row& per_us = find_row(rows, "a", 0, "per_us");
  EXPECT_EQ(per_us.num_runs, 2u);
  EXPECT_DOUBLE_EQ(per_us.mean, 7.5);
  EXPECT_EQ(per_us.unit, "1/us");
}

TEST(AggregateDerive, PerKernelDerivesEachKernel) {
  Options o;
  o.per_kernel = true;
  o.derive = [](const std::vector<double>& v, std::size_t) {
    return std::vector<DerivedValue>{{"double", 2 * v[0], "ns"}};
  };
  const auto samples = make_samples({rec(0, 0, "r", "k0", 0, 10), rec(0, 0, "r", "k1", 1, 30)}, o);
  ASSERT_EQ(samples.size(), 4u);
  EXPECT_EQ(samples[2].kernel, "k0");
  EXPECT_EQ(samples[2].kernel_index, 0);
  EXPECT_DOUBLE_EQ(samples[2].value, 20);
  EXPECT_EQ(samples[3].kernel, "k1");
  EXPECT_EQ(samples[3].kernel_index, 1);
  EXPECT_DOUBLE_EQ(samples[3].value, 60);
}

// --- rows --------------------------------------------------------------------------------------

TEST(AggregateRows, StatisticsOverRuns) {
  const auto rows = make_rows(make_samples(runs_of(0, "a", {100, 110, 105}), Options{}), {});
  ASSERT_EQ(rows.size(), 1u);
  const Row& r = rows[0];
  EXPECT_EQ(r.annotation, "a");
  EXPECT_EQ(r.kernel, "kernel");
  EXPECT_EQ(r.kernel_index, -1);
  EXPECT_DOUBLE_EQ(r.mean, 105);
  EXPECT_DOUBLE_EQ(r.stddev, 5);
  EXPECT_DOUBLE_EQ(r.min, 100);
  EXPECT_DOUBLE_EQ(r.max, 110);
  EXPECT_DOUBLE_EQ(r.median, 105);
  EXPECT_EQ(r.num_runs, 3u);
  EXPECT_NEAR(r.ci95_lower, 105 - kT2 * 5 / std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(r.ci95_upper, 105 + kT2 * 5 / std::sqrt(3.0), 1e-9);
  EXPECT_DOUBLE_EQ(r.rel_stddev_pct, 100.0 * 5 / 105);
  ASSERT_TRUE(r.stable.has_value());
  EXPECT_FALSE(*r.stable);
  EXPECT_EQ(r.unit, "ns");
  EXPECT_EQ(r.normalized_against, "");
  EXPECT_TRUE(std::isnan(r.normalization_value));
  EXPECT_DOUBLE_EQ(r.geomean, 105);
}

TEST(AggregateRows, OneRunLeavesStabilityUnset) {
  const auto rows = make_rows(make_samples(runs_of(0, "a", {100}), Options{}), {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].num_runs, 1u);
  EXPECT_TRUE(std::isnan(rows[0].stddev));
  EXPECT_FALSE(rows[0].stable.has_value());
}

TEST(AggregateRows, OrderIsMeasuredThenDerivedByAnnotationConfigMetric) {
  Options o = with_metrics({"m.sum", "n.sum"});
  o.derive = [](const std::vector<double>& v, std::size_t) {
    return std::vector<DerivedValue>{{"d", v[0] + v[1], ""}};
  };
  // "b" is seen first, config 1 before config 0, metric n before m.
  std::vector<Record> records;
  for (std::size_t config : {1u, 0u})
    for (const char* annotation : {"b", "a"})
      for (const char* metric : {"n.sum", "m.sum"})
        records.push_back(rec(config, 0, annotation, "k", 0, 1, metric));
  const auto rows = make_rows(make_samples(records, o), o);
  EXPECT_EQ(describe(rows),
            (std::vector<std::string>{"b/0/m.sum", "b/0/n.sum", "b/1/m.sum", "b/1/n.sum",
                                      "a/0/m.sum", "a/0/n.sum", "a/1/m.sum", "a/1/n.sum", "b/0/d",
                                      "b/1/d", "a/0/d", "a/1/d"}));
}

// --- normalization -----------------------------------------------------------------------------

TEST(AggregateNormalize, DividesEveryStatisticByBaselineMean) {
  const auto records =
      concat({runs_of(0, "fast", {100, 110, 105}), runs_of(0, "base", {190, 210, 200}),
              runs_of(1, "fast", {20, 30, 25}), runs_of(1, "base", {50, 50, 50})});
  Options o;
  const auto samples = make_samples(records, o);
  const auto plain = make_rows(samples, o);
  o.normalize_against = "base";
  const auto rows = make_rows(samples, o);
  ASSERT_EQ(rows.size(), plain.size());

  const Row& r = find_row(rows, "fast", 0);
  const Row& p = find_row(plain, "fast", 0);
  EXPECT_DOUBLE_EQ(r.mean, 105.0 / 200);
  EXPECT_DOUBLE_EQ(r.stddev, 5.0 / 200);
  EXPECT_DOUBLE_EQ(r.min, 100.0 / 200);
  EXPECT_DOUBLE_EQ(r.max, 110.0 / 200);
  EXPECT_DOUBLE_EQ(r.median, 105.0 / 200);
  EXPECT_DOUBLE_EQ(r.ci95_lower, p.ci95_lower / 200);
  EXPECT_DOUBLE_EQ(r.ci95_upper, p.ci95_upper / 200);
  EXPECT_DOUBLE_EQ(r.rel_stddev_pct, p.rel_stddev_pct);
  EXPECT_EQ(r.stable, p.stable);
  EXPECT_EQ(r.num_runs, 3u);
  EXPECT_EQ(r.unit, "ratio");
  EXPECT_EQ(r.normalized_against, "base");
  EXPECT_DOUBLE_EQ(r.normalization_value, 200);

  const Row& base = find_row(rows, "base", 0);
  EXPECT_DOUBLE_EQ(base.mean, 1);
  EXPECT_DOUBLE_EQ(base.normalization_value, 200);
  EXPECT_DOUBLE_EQ(find_row(rows, "fast", 1).mean, 0.5);
  EXPECT_DOUBLE_EQ(find_row(rows, "fast", 1).normalization_value, 50);
  // Geomean after normalization: of the ratios.
  EXPECT_DOUBLE_EQ(r.geomean, std::sqrt(0.525 * 0.5));
}

TEST(AggregateNormalize, UnknownAnnotationNamesTheMeasuredOnes) {
  Options o;
  o.normalize_against = "missing";
  const auto records = concat({runs_of(0, "fast", {1}), runs_of(0, "base", {2})});
  EXPECT_THROW(make_rows(make_samples(records, o), o), AnnotationError);
  EXPECT_EQ(message_of(records, o),
            "normalize_against='missing' names no annotation; annotations measured: fast, base");
}

TEST(AggregateNormalize, ConfigWithoutBaselineIsAnError) {
  Options o;
  o.normalize_against = "base";
  const auto records =
      concat({runs_of(0, "fast", {1}), runs_of(0, "base", {2}), runs_of(1, "fast", {1})});
  EXPECT_THROW(make_rows(make_samples(records, o), o), AnnotationError);
  const std::string m = message_of(records, o);
  EXPECT_NE(m.find("config 1"), std::string::npos) << m;
  EXPECT_NE(m.find("'base'"), std::string::npos) << m;
}

// --- geomean -----------------------------------------------------------------------------------

TEST(AggregateGeomean, PerAnnotationAndMetricOverConfigs) {
  const Options o = with_metrics({kTime, "n.sum"});
  const auto records = concat({runs_of(0, "a", {2}), runs_of(1, "a", {8}), runs_of(0, "b", {1}),
                               runs_of(1, "b", {100}), runs_of(0, "a", {3}, "n.sum"),
                               runs_of(1, "a", {3}, "n.sum")});
  const auto rows = make_rows(make_samples(records, o), o);
  EXPECT_DOUBLE_EQ(find_row(rows, "a", 0).geomean, 4);
  EXPECT_DOUBLE_EQ(find_row(rows, "a", 1).geomean, 4);
  EXPECT_DOUBLE_EQ(find_row(rows, "b", 0).geomean, 10);
  EXPECT_DOUBLE_EQ(find_row(rows, "a", 1, "n.sum").geomean, 3);
}

TEST(AggregateGeomean, SkipsConfigsWhoseRunsAllFailed) {
  const auto records =
      concat({runs_of(0, "a", {2}), runs_of(1, "a", {kNaN}), runs_of(2, "a", {8})});
  const auto rows = make_rows(make_samples(records, Options{}), {});
  EXPECT_TRUE(std::isnan(find_row(rows, "a", 1).mean));
  EXPECT_DOUBLE_EQ(find_row(rows, "a", 1).geomean, 4);
}

// --- aggregate ---------------------------------------------------------------------------------

TEST(AggregateAll, BundlesRecordsSamplesAndRows) {
  SessionInfo session;
  session.gpu = "NVIDIA H200";
  const std::vector<Record> records{rec(0, 0, "r", "k0", 0, 10), rec(0, 0, "r", "k1", 1, 5),
                                    rec(0, 1, "r", "k0", 0, 12), rec(0, 1, "r", "k1", 1, 7)};
  Options o;
  o.combine = CombineKind::sum;
  const Results results = aggregate(session, Sweep(), records, o);
  EXPECT_EQ(results.session().gpu, "NVIDIA H200");
  EXPECT_EQ(results.records().size(), 4u);
  ASSERT_EQ(results.samples().size(), 2u);
  EXPECT_DOUBLE_EQ(results.samples()[1].value, 19);
  ASSERT_EQ(results.rows().size(), 1u);
  EXPECT_DOUBLE_EQ(results.rows()[0].mean, 17);
  EXPECT_EQ(results.rows()[0].kernel, "k0|k1");
}
