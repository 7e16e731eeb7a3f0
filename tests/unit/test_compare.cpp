// kprof::compare and its statistics. Mann-Whitney U values are scipy 1.17.1's
// scipy.stats.mannwhitneyu(x, y) (two-sided) with the method named in each test, computed for
// these samples; the first is the example of scipy's documentation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/results/aggregate.hpp"
#include "core/results/compare.hpp"
#include "kprof/compare.hpp"
#include "kprof/errors.hpp"

using namespace kprof;
using kprof::detail::mann_whitney_u;

namespace {

const std::string kTime(kDurationMetric);
const std::string kData = KPROF_TEST_DATA;

// ---- Mann-Whitney U against scipy ------------------------------------------------------------

TEST(CompareMannWhitney, ScipyDocumentationExampleExact) {
  // scipy docs: mannwhitneyu(males, females, method="exact") -> U 17, p 0.1111111111111111
  const std::vector<double> males{19, 22, 16, 29, 24}, females{20, 11, 17, 12};
  const auto t = mann_whitney_u(males, females);
  EXPECT_EQ(t.method, TestMethod::exact);
  EXPECT_DOUBLE_EQ(t.u, 17.0);
  EXPECT_NEAR(t.p, 0.1111111111111111, 1e-15);
}

TEST(CompareMannWhitney, SeparatedSamplesReachTheSmallestExactP) {
  // method="exact": U 0, p 0.007936507936507936 = 2 / C(10, 5)
  const auto t =
      mann_whitney_u(std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{6, 7, 8, 9, 10});
  EXPECT_EQ(t.method, TestMethod::exact);
  EXPECT_DOUBLE_EQ(t.u, 0.0);
  EXPECT_NEAR(t.p, 0.007936507936507936, 1e-15);
  EXPECT_NEAR(detail::min_two_sided_p(5, 5), 2.0 / 252, 1e-15);
}

TEST(CompareMannWhitney, SmallSamplesWithTiesUseTheExactPermutationDistribution) {
  // Durations in ns as the H200 gives them (ties are common). method=PermutationMethod()
  // (all 252 splits enumerated): U 4, p 0.1111111111111111. scipy's default would use the
  // normal approximation here (p 0.08667695356873933).
  const std::vector<double> x{4896, 4768, 4896, 5024, 4800}, y{4896, 5024, 5056, 4928, 5024};
  const auto t = mann_whitney_u(x, y);
  EXPECT_EQ(t.method, TestMethod::exact);
  EXPECT_DOUBLE_EQ(t.u, 4.0);
  EXPECT_NEAR(t.p, 0.1111111111111111, 1e-14);
}

TEST(CompareMannWhitney, UnbalancedSamplesWithTiesExact) {
  // 3 against 30: method=PermutationMethod() (all 5456 splits): U 22.5, p 0.17082111436950145
  const std::vector<double> x{51, 55, 59};
  const std::vector<double> y{66, 64, 62, 50, 64, 59, 51, 54, 60, 64, 60, 62, 67, 63, 57,
                              62, 61, 52, 51, 63, 57, 61, 56, 54, 53, 57, 66, 58, 57, 61};
  const auto t = mann_whitney_u(x, y);
  EXPECT_EQ(t.method, TestMethod::exact);
  EXPECT_DOUBLE_EQ(t.u, 22.5);
  EXPECT_NEAR(t.p, 0.17082111436950145, 1e-13);
  // Swapping the samples gives U' = n1 n2 - U and the same p.
  const auto swapped = mann_whitney_u(y, x);
  EXPECT_DOUBLE_EQ(swapped.u, 90 - 22.5);
  EXPECT_NEAR(swapped.p, t.p, 1e-13);
}

TEST(CompareMannWhitney, LargeSamplesWithTiesNormalApproximation) {
  // 20 against 20 with ties: method="asymptotic" (tie and continuity corrected): U 112,
  // p 0.017681096219802832
  const std::vector<double> x{118, 112, 113, 117, 111, 115, 116, 104, 101, 106,
                              105, 117, 118, 100, 109, 116, 102, 115, 102, 109};
  const std::vector<double> y{120, 110, 110, 109, 118, 109, 123, 112, 113, 114,
                              115, 115, 114, 123, 120, 119, 118, 116, 110, 123};
  const auto t = mann_whitney_u(x, y);
  EXPECT_EQ(t.method, TestMethod::normal);
  EXPECT_DOUBLE_EQ(t.u, 112.0);
  EXPECT_NEAR(t.p, 0.017681096219802832, 1e-14);
}

TEST(CompareMannWhitney, NineAgainstTwelveWithoutTiesNormalApproximation) {
  // Both sides above 8: scipy's default, method="asymptotic": U 9, p 0.0015643293519696276
  const std::vector<double> x{8.158, 9.765, 8.733, 10.271, 10.157, 9.813, 7.483, 9.461, 9.951};
  const std::vector<double> y{11.113, 9.47,   10.522, 10.021, 10.191, 12.061,
                              10.192, 10.967, 11.884, 10.416, 10.888, 11.11};
  const auto t = mann_whitney_u(x, y);
  EXPECT_EQ(t.method, TestMethod::normal);
  EXPECT_DOUBLE_EQ(t.u, 9.0);
  EXPECT_NEAR(t.p, 0.0015643293519696276, 1e-14);
}

TEST(CompareMannWhitney, AllValuesTiedGivePOne) {
  // scipy: U 6, p 1.0 (both methods)
  const auto small = mann_whitney_u(std::vector<double>{5, 5, 5}, std::vector<double>{5, 5, 5, 5});
  EXPECT_DOUBLE_EQ(small.u, 6.0);
  EXPECT_DOUBLE_EQ(small.p, 1.0);
  const std::vector<double> many(20, 7.0);
  const auto large = mann_whitney_u(many, many);
  EXPECT_EQ(large.method, TestMethod::normal);
  EXPECT_DOUBLE_EQ(large.p, 1.0);
}

TEST(CompareMannWhitney, EmptySampleHasNoTest) {
  const auto t = mann_whitney_u(std::vector<double>{}, std::vector<double>{1, 2, 3});
  EXPECT_EQ(t.method, TestMethod::none);
  EXPECT_TRUE(std::isnan(t.p));
}

// ---- the verdict -----------------------------------------------------------------------------

TEST(CompareVerdict, Rules) {
  const CompareOptions o;  // threshold 2%, alpha 0.05
  using detail::decide;
  EXPECT_EQ(decide(-10, 0.01, 5, 5, true, o), Verdict::faster);
  EXPECT_EQ(decide(+10, 0.01, 5, 5, true, o), Verdict::slower);
  EXPECT_EQ(decide(-10, 0.01, 5, 5, false, o), Verdict::lower);
  EXPECT_EQ(decide(+10, 0.01, 5, 5, false, o), Verdict::higher);
  EXPECT_EQ(decide(+1.9, 0.001, 5, 5, true, o), Verdict::same);  // significant but small
  EXPECT_EQ(decide(+50, 0.06, 5, 5, true, o), Verdict::same);    // large but not significant
  EXPECT_EQ(decide(+50, 0.01, 2, 5, true, o), Verdict::not_enough_runs);
  // 3 against 3: the smallest two-sided p is 0.1, so no outcome reaches alpha = 0.05 ...
  EXPECT_NEAR(detail::min_two_sided_p(3, 3), 0.1, 1e-15);
  EXPECT_EQ(decide(+50, 0.01, 3, 3, true, o), Verdict::not_enough_runs);
  // ... but it can at alpha = 0.2.
  CompareOptions loose;
  loose.alpha = 0.2;
  EXPECT_EQ(decide(+50, 0.1, 3, 3, true, loose), Verdict::slower);
  EXPECT_EQ(decide(std::numeric_limits<double>::quiet_NaN(), 0.01, 5, 5, true, o), Verdict::same);
}

TEST(CompareVerdict, TimeUnitsAreLowerIsBetter) {
  for (const char* unit : {"ns", "us", "ms", "s", "nsecond", "usecond"})
    EXPECT_TRUE(detail::lower_is_better(unit)) << unit;
  for (const char* unit : {"GB/s", "%", "ratio", "", "byte"})
    EXPECT_FALSE(detail::lower_is_better(unit)) << unit;
}

TEST(CompareVerdict, ChangePct) {
  EXPECT_DOUBLE_EQ(detail::change_pct(100, 110), 10.0);
  EXPECT_DOUBLE_EQ(detail::change_pct(-100, -90), 10.0);
  EXPECT_DOUBLE_EQ(detail::change_pct(0, 0), 0.0);
  EXPECT_EQ(detail::change_pct(0, 5), std::numeric_limits<double>::infinity());
}

TEST(CompareOptionsTest, Validation) {
  CompareOptions o;
  o.threshold_pct = -1;
  EXPECT_THROW(o.validate(), OptionError);
  o = {};
  o.alpha = 1;
  EXPECT_THROW(o.validate(), OptionError);
  o = {};
  o.alpha = 0;
  EXPECT_THROW(o.validate(), OptionError);
  o = {};
  o.metrics = {""};
  EXPECT_THROW(o.validate(), OptionError);
  EXPECT_NO_THROW(CompareOptions{}.validate());
}

// ---- matching rows (synthetic results: made-up durations aggregated by the core) ------------

SessionInfo synthetic_session(int runs) {
  SessionInfo s;
  s.gpu = "synthetic (no GPU)";
  s.host = "test-host";
  s.backend = "synthetic-test";
  s.replay_mode = "kernel";
  s.cache_control = "all";
  s.clock_control = "none";
  s.runs = runs;
  s.metrics = {kTime};
  return s;
}

struct Region {
  std::vector<Value> config;
  std::string annotation;
  std::vector<double> durations;  // ns, one per run
};

Results synthetic(const std::vector<std::string>& names, const std::vector<Region>& regions,
                  const std::string& unit = "ns") {
  std::vector<std::vector<Value>> points;
  std::vector<Record> records;
  for (const Region& r : regions) {
    auto it = std::find(points.begin(), points.end(), r.config);
    if (it == points.end()) it = points.insert(points.end(), r.config);
    const std::size_t config = static_cast<std::size_t>(it - points.begin());
    for (std::size_t run = 0; run < r.durations.size(); ++run)
      records.push_back({config, static_cast<int>(run), r.annotation, r.annotation + "_kernel", 0,
                         kTime, r.durations[run], unit});
  }
  Options o;
  o.metrics = {kTime};
  const int runs = regions.empty() ? 0 : static_cast<int>(regions.front().durations.size());
  return detail::aggregate(synthetic_session(runs), Sweep::list(names, points), records, o);
}

const ComparedRow* find(const Comparison& c, const std::string& annotation,
                        const std::vector<Param>& config) {
  for (const ComparedRow& r : c.rows)
    if (r.annotation == annotation && r.config == config) return &r;
  return nullptr;
}

const std::vector<double> kBase{100, 101, 99, 100, 102};
const std::vector<double> kSlower{110, 111, 109, 112, 110};  // +10 %, no overlap

TEST(CompareRows, ConfigsAreMatchedByParameterValuesNotPosition) {
  const Results base = synthetic({"n", "dtype"}, {{{std::int64_t{1024}, "fp16"}, "mm", kBase},
                                                  {{std::int64_t{2048}, "fp16"}, "mm", kSlower}});
  // The new file lists the configs the other way round, with its axes in another order.
  const Results next = synthetic({"dtype", "n"}, {{{"fp16", std::int64_t{2048}}, "mm", kSlower},
                                                  {{"fp16", std::int64_t{1024}}, "mm", kSlower}});
  const Comparison c = compare(base, next);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_TRUE(c.only_in_base.empty());
  EXPECT_TRUE(c.only_in_new.empty());
  const ComparedRow* small = find(c, "mm", {{"n", std::int64_t{1024}}, {"dtype", "fp16"}});
  const ComparedRow* large = find(c, "mm", {{"n", std::int64_t{2048}}, {"dtype", "fp16"}});
  ASSERT_TRUE(small && large);
  EXPECT_DOUBLE_EQ(small->base_mean, 100.4);
  EXPECT_DOUBLE_EQ(small->new_mean, 110.4);
  EXPECT_EQ(small->verdict, Verdict::slower);
  EXPECT_EQ(small->ci_overlap, std::optional<bool>(false));
  EXPECT_EQ(small->method, TestMethod::exact);
  EXPECT_NEAR(small->p_value, 2.0 / 252, 1e-15);
  EXPECT_DOUBLE_EQ(small->u, 0.0);
  EXPECT_EQ(large->verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(large->change_pct, 0.0);
  EXPECT_DOUBLE_EQ(large->p_value, 1.0);
  EXPECT_TRUE(c.any_slower());
  EXPECT_EQ(c.count(Verdict::slower), 1u);
}

TEST(CompareRows, IntAndDoubleValuesOfOneNumberMatch) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1024}}, "mm", kBase}});
  const Results next = synthetic({"n"}, {{{1024.0}, "mm", kBase}});
  EXPECT_EQ(compare(base, next).rows.size(), 1u);
}

TEST(CompareRows, RowsInOneResultOnlyAreListed) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase},
                                         {{std::int64_t{1}}, "gone", kBase},
                                         {{std::int64_t{2}}, "a", kBase}});
  const Results next = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase},
                                         {{std::int64_t{2}}, "a", kBase},
                                         {{std::int64_t{3}}, "a", kBase}});
  const Comparison c = compare(base, next);
  EXPECT_EQ(c.rows.size(), 2u);
  ASSERT_EQ(c.only_in_base.size(), 1u);
  EXPECT_EQ(c.only_in_base[0].annotation, "gone");
  EXPECT_EQ(c.only_in_base[0].num_runs, 5u);
  ASSERT_EQ(c.only_in_new.size(), 1u);
  EXPECT_EQ(c.only_in_new[0].config, (std::vector<Param>{{"n", std::int64_t{3}}}));
  const std::string text = c.table();
  EXPECT_NE(text.find("only in BASE (1):"), std::string::npos) << text;
  EXPECT_NE(text.find("only in NEW (1):"), std::string::npos) << text;
  EXPECT_NE(text.find("2 compared: 0 slower, 0 faster, 0 higher, 0 lower, 2 same"),
            std::string::npos)
      << text;
}

// What compare() refuses, as its message.
std::string refusal(const Results& base, const Results& next, const CompareOptions& o = {}) {
  try {
    compare(base, next, o);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "compared";
}

TEST(CompareRows, DifferentParameterNamesMatchNothingAndThatIsAnError) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase}});
  const Results next = synthetic({"m"}, {{{std::int64_t{1}}, "a", kBase}});
  EXPECT_EQ(refusal(base, next),
            "nothing to compare: no row of BASE has a counterpart in NEW (BASE has parameters "
            "'n', NEW 'm'); valid: results with rows of the same annotation, metric, config and "
            "kernel index");
}

TEST(CompareRows, NothingInCommonSaysWhatDiffers) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase}});
  const Results other_region = synthetic({"n"}, {{{std::int64_t{1}}, "b", kBase}});
  EXPECT_NE(refusal(base, other_region).find("(BASE has annotations 'a', NEW 'b')"),
            std::string::npos);
  const Results other_config = synthetic({"n"}, {{{std::int64_t{2}}, "a", kBase}});
  EXPECT_NE(refusal(base, other_config)
                .find("(their configs (parameter values) or kernel "
                      "indices differ)"),
            std::string::npos);
  const Results empty(base.session(), base.sweep(), {}, {}, {});
  EXPECT_NE(refusal(base, empty).find("(NEW has no rows)"), std::string::npos);
  EXPECT_NE(refusal(empty, empty).find("(BASE has no rows (nor has NEW))"), std::string::npos);
}

TEST(CompareRows, RepeatedConfigsMatchInOrder) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase}});
  // Sweep::list accepts the same point twice; the second has no counterpart in base.
  std::vector<Record> records;
  for (std::size_t config : {0u, 1u})
    for (int run = 0; run < 5; ++run)
      records.push_back({config, run, "a", "k", 0, kTime, kBase[run], "ns"});
  Options o;
  const Results next = detail::aggregate(
      synthetic_session(5), Sweep::list({"n"}, {{std::int64_t{1}}, {std::int64_t{1}}}), records, o);
  const Comparison c = compare(base, next);
  EXPECT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.only_in_new.size(), 1u);
}

TEST(CompareRows, UnitsConvertIntoTheBaseUnit) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", {1000, 1010, 990, 1000, 1020}}});
  const Results next =
      synthetic({"n"}, {{{std::int64_t{1}}, "a", {1.1, 1.11, 1.09, 1.12, 1.1}}}, "us");
  const Comparison c = compare(base, next);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].unit, "ns");
  EXPECT_NEAR(c.rows[0].new_mean, 1104, 1e-9);
  EXPECT_EQ(c.rows[0].verdict, Verdict::slower);
}

TEST(CompareRows, UnitsThatDoNotConvertAreLeftOutWithAWarning) {
  const Results base =
      synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase}, {{std::int64_t{1}}, "b", kBase}});
  // The same values, region a's in a unit that does not convert.
  std::vector<Row> rows = base.rows();
  std::vector<Sample> samples = base.samples();
  for (Row& r : rows)
    if (r.annotation == "a") r.unit = "GB/s";
  for (Sample& s : samples)
    if (s.annotation == "a") s.unit = "GB/s";
  const Results next(base.session(), base.sweep(), base.records(), samples, rows);
  const Comparison c = compare(base, next);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].annotation, "b");
  EXPECT_TRUE(c.only_in_base.empty());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0],
            "1 row left out, their values cannot be compared: unit 'ns' in BASE, 'GB/s' in NEW");
}

TEST(CompareRows, OnlyRowsThatCannotBeComparedIsAnError) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase}});
  const Results next = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase}}, "GB/s");
  EXPECT_EQ(refusal(base, next),
            "nothing to compare: the 1 row found in both cannot be compared (unit 'ns' in BASE, "
            "'GB/s' in NEW); valid: results whose rows have convertible units and are "
            "normalized the same way (or not at all) in both");
}

TEST(CompareRows, SessionDifferencesAreWarnedAbout) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase}});
  SessionInfo other = base.session();
  other.gpu = "NVIDIA H100";
  other.cache_control = "none";
  const Results next(other, base.sweep(), base.records(), base.samples(), base.rows());
  const Comparison c = compare(base, next);
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_EQ(c.warnings[0],
            "different GPU: 'synthetic (no GPU)' in BASE, 'NVIDIA H100' in NEW; the values come "
            "from different hardware");
  EXPECT_NE(c.warnings[1].find("different cache control: 'all' in BASE, 'none' in NEW"),
            std::string::npos);
  EXPECT_EQ(c.table().rfind("warning: different GPU", 0), 0u);
}

TEST(CompareRows, TooFewRunsSayNotEnoughRuns) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", {100, 101, 99}}});
  const Results next = synthetic({"n"}, {{{std::int64_t{1}}, "a", {200, 201, 199}}});
  const Comparison c = compare(base, next);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::not_enough_runs);
  EXPECT_NEAR(c.rows[0].p_value, 0.1, 1e-15);
  EXPECT_FALSE(c.any_slower());
}

TEST(CompareRows, ThresholdAndAlphaAreHonoured) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase}});
  const Results next = synthetic({"n"}, {{{std::int64_t{1}}, "a", kSlower}});
  CompareOptions o;
  o.threshold_pct = 15;
  EXPECT_EQ(compare(base, next, o).rows[0].verdict, Verdict::same);
  o = {};
  o.alpha = 0.005;  // below 2 / C(10, 5): no 5-against-5 outcome can reach it
  EXPECT_EQ(compare(base, next, o).rows[0].verdict, Verdict::not_enough_runs);
}

TEST(CompareRows, MetricFilter) {
  const Results base = synthetic({"n"}, {{{std::int64_t{1}}, "a", kBase}});
  CompareOptions o;
  o.metrics = {kTime};
  EXPECT_EQ(compare(base, base, o).rows.size(), 1u);
  o.metrics = {"gpu__time_duration.max"};
  try {
    compare(base, base, o);
    FAIL() << "expected OptionError";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "metric");
    EXPECT_EQ(e.valid(), "'" + kTime + "'");
  }
}

// ---- real recordings (tests/data, measured on the H200) --------------------------------------

TEST(CompareRecordings, ARecordingAgainstItselfIsTheSame) {
  for (const char* file :
       {"h200-python-demo-2026-11-30.json", "h200-python-per-kernel-2026-11-30.json",
        "h200-torch-matmul-sweep-2026-11-30.json", "h200-python-normalized-2026-11-30.json"}) {
    const Results r = Results::read_json(kData + "/" + file);
    const Comparison c = compare(r, r);
    EXPECT_EQ(c.rows.size(), r.rows().size()) << file;
    EXPECT_TRUE(c.warnings.empty()) << file;
    for (const ComparedRow& row : c.rows) {
      EXPECT_EQ(row.verdict, Verdict::same) << file << " " << row.annotation;
      EXPECT_DOUBLE_EQ(row.p_value, 1.0);
      EXPECT_DOUBLE_EQ(row.change_pct, 0.0);
      EXPECT_EQ(row.base_runs, row.new_runs);
    }
  }
}

TEST(CompareRecordings, MatmulSweepUsesTheNormalApproximationFor20Runs) {
  const Results r = Results::read_json(kData + "/h200-torch-matmul-sweep-2026-11-30.json");
  const Comparison c = compare(r, r);
  ASSERT_FALSE(c.rows.empty());
  for (const ComparedRow& row : c.rows) {
    EXPECT_EQ(row.method, TestMethod::normal);
    EXPECT_EQ(row.base_runs, 20u);
  }
}

TEST(CompareRecordings, PerKernelRowsKeepTheirKernelIndex) {
  const Results r = Results::read_json(kData + "/h200-python-per-kernel-2026-11-30.json");
  const Comparison c = compare(r, r);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].kernel_index, 0);
  EXPECT_EQ(c.rows[1].kernel_index, 1);
  EXPECT_NE(c.table().find("KernelIndex"), std::string::npos);
}

TEST(CompareRecordings, NormalizedAgainstPlainRowsAreNotCompared) {
  // Two real profiles of the same demo kernels and configs; one normalized against
  // memory/scale (ratios), the other in ns with a derived throughput.
  const Results plain = Results::read_json(kData + "/h200-python-demo-2026-11-30.json");
  const Results normalized = Results::read_json(kData + "/h200-python-normalized-2026-11-30.json");
  // Nothing is compared: the durations are ratios on one side, and the throughput rows are
  // BASE's only. A check that compared nothing must not pass.
  EXPECT_EQ(refusal(plain, normalized),
            "nothing to compare: the 8 rows found in both cannot be compared (not normalized in "
            "BASE, normalized against 'memory/scale' in NEW); valid: results whose rows have "
            "convertible units and are normalized the same way (or not at all) in both");
  // Nor does asking for a metric that only one side has.
  CompareOptions throughput;
  throughput.metrics = {"throughput"};
  EXPECT_NE(
      refusal(plain, normalized, throughput).find("(NEW has no rows of the metrics asked for)"),
      std::string::npos);
}

TEST(CompareRecordings, NormalizedRowsCompareTheirRatios) {
  // The normalized recording against itself with its memory/add runs made 10% slower through
  // the core's aggregation (derived test data, not a measurement): memory/add's ratio to
  // memory/scale rises, and its per-run values are compared on the ratio scale.
  const Results r = Results::read_json(kData + "/h200-python-normalized-2026-11-30.json");
  std::vector<Record> records = r.records();
  for (Record& rec : records)
    if (rec.annotation == "memory/add") rec.value *= 1.10;
  Options o;
  o.combine = CombineKind::sum;  // the demo's "memory" region holds two kernels
  o.normalize_against = "memory/scale";
  const Results derived = detail::aggregate(r.session(), r.sweep(), records, o);
  const Comparison c = compare(r, derived);
  ASSERT_EQ(c.rows.size(), r.rows().size());
  for (const ComparedRow& row : c.rows) {
    EXPECT_EQ(row.unit, "ratio");
    if (row.annotation == "memory/add") {
      EXPECT_NEAR(row.change_pct, 10.0, 1e-9);
      EXPECT_EQ(row.verdict, Verdict::higher);  // a ratio has no known better direction
    } else {
      EXPECT_EQ(row.verdict, Verdict::same) << row.annotation;
    }
  }
}

TEST(CompareRecordings, TableIsAlignedAndScaled) {
  const Results r = Results::read_json(kData + "/h200-python-per-kernel-2026-11-30.json");
  const std::string text = compare(r, r).table();
  // The headings are the result layout's comparison columns (BaseMean, ..., NewRuns).
  EXPECT_NE(
      text.find("Annotation  n        Metric                  KernelIndex  BaseMean  NewMean  "
                "ChangePct  CIOverlap  PValue   Test  BaseRuns  NewRuns  Verdict  Unit\n"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("two         1048576  gpu__time_duration.sum            0      4.89     4.89  "
                "   +0.00%        yes       1  exact         5        5  same     us\n"),
      std::string::npos)
      << text;
}

}  // namespace
