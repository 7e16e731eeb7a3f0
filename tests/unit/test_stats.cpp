#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "kprof/stats.hpp"

using namespace kprof;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// |actual - expected| <= rel * |expected|
::testing::AssertionResult RelNear(double actual, double expected, double rel) {
  if (std::abs(actual - expected) <= rel * std::abs(expected)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "actual " << actual << " expected " << expected << " relative error "
         << std::abs(actual - expected) / std::abs(expected);
}

}  // namespace

// Table values to more digits than printed tables carry (mpmath, 30 digits).
TEST(StatsTQuantile, MatchesTableValues) {
  EXPECT_TRUE(RelNear(student_t_quantile(0.975, 1), 12.706204736174707, 1e-10));
  EXPECT_TRUE(RelNear(student_t_quantile(0.975, 2), 4.3026527297494618, 1e-10));
  EXPECT_TRUE(RelNear(student_t_quantile(0.975, 3), 3.1824463052837084, 1e-10));
  EXPECT_TRUE(RelNear(student_t_quantile(0.975, 9), 2.262157162798205, 1e-10));
  EXPECT_TRUE(RelNear(student_t_quantile(0.975, 29), 2.0452296421327039, 1e-10));
  EXPECT_TRUE(RelNear(student_t_quantile(0.95, 4), 2.1318467863266495, 1e-10));
  EXPECT_TRUE(RelNear(student_t_quantile(0.975, 1e6), 1.9599663568141067, 1e-10));
}

TEST(StatsTQuantile, LargeDfApproachesNormal) {
  const double z = 1.9599639845400539;
  EXPECT_GT(student_t_quantile(0.975, 1e4), z);
  EXPECT_TRUE(RelNear(student_t_quantile(0.975, 1e9), z, 1e-8));
}

TEST(StatsTQuantile, MatchesClosedFormsForOneAndTwoDegrees) {
  for (double p : {1e-300, 1e-12, 1e-4, 0.01, 0.2, 0.3, 0.4999, 0.5 + 1e-12, 0.7, 0.999}) {
    SCOPED_TRACE(p);
    const double cauchy =
        p < 0.25 ? -1 / std::tan(std::numbers::pi * p) : std::tan(std::numbers::pi * (p - 0.5));
    EXPECT_TRUE(RelNear(student_t_quantile(p, 1), cauchy, 1e-11));
    const double two = (2 * p - 1) / std::sqrt(2 * p * (1 - p));
    EXPECT_TRUE(RelNear(student_t_quantile(p, 2), two, 1e-11));
  }
}

TEST(StatsTQuantile, IsAntisymmetricAndIncreasing) {
  for (double df : {1.0, 2.5, 7.0, 30.0, 1e3, 1e6}) {
    double previous = -std::numeric_limits<double>::infinity();
    for (double p : {0x1p-30, 0x1p-10, 0.0625, 0.25, 0.375, 0.5, 0.625, 0.875, 0.96875}) {
      SCOPED_TRACE(testing::Message() << "df " << df << " p " << p);
      const double q = student_t_quantile(p, df);
      EXPECT_GT(q, previous);
      EXPECT_TRUE(RelNear(student_t_quantile(1 - p, df), -q, 1e-12));  // 1 - p is exact here
      previous = q;
    }
  }
}

TEST(StatsTQuantile, EdgesAndInvalidArguments) {
  EXPECT_EQ(student_t_quantile(0.5, 5), 0);
  EXPECT_EQ(student_t_quantile(0, 5), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(student_t_quantile(1, 5), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(student_t_quantile(1.5, 5)));
  EXPECT_TRUE(std::isnan(student_t_quantile(kNaN, 5)));
  EXPECT_TRUE(std::isnan(student_t_quantile(0.9, 0)));
  EXPECT_TRUE(std::isnan(student_t_quantile(0.9, -1)));
}

TEST(StatsBasics, MeanMedianStddevGeomean) {
  const std::vector<double> v{100, 110, 105};
  EXPECT_DOUBLE_EQ(mean(v), 105);
  EXPECT_DOUBLE_EQ(sample_stddev(v), 5);  // the population value would be 4.08
  EXPECT_DOUBLE_EQ(median(v), 105);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(sample_stddev(std::vector<double>{1})));
  EXPECT_TRUE(std::isnan(mean(std::vector<double>{})));
  EXPECT_TRUE(std::isnan(median(std::vector<double>{})));
  EXPECT_DOUBLE_EQ(geomean(std::vector<double>{1, 100}), 10);
  EXPECT_DOUBLE_EQ(geomean(std::vector<double>{2, 8}), 4);
}

TEST(StatsBasics, GeomeanUndefinedForEmptyZeroOrNegative) {
  EXPECT_TRUE(std::isnan(geomean(std::vector<double>{})));
  EXPECT_TRUE(std::isnan(geomean(std::vector<double>{2, 0})));
  EXPECT_TRUE(std::isnan(geomean(std::vector<double>{2, -8})));
}

TEST(StatsCi95, UsesStudentTNotNormal) {
  const std::vector<double> v{100, 110, 105};
  const Interval ci = ci95_of_mean(v);
  const double half = 4.3026527297494618 * 5 / std::sqrt(3.0);  // t(0.975, 2) = 4.30, z = 1.96
  EXPECT_NEAR(ci.lower, 105 - half, 1e-9);
  EXPECT_NEAR(ci.upper, 105 + half, 1e-9);

  const std::vector<double> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const Interval ci10 = ci95_of_mean(ten);
  const double half10 = 2.262157162798205 * 3.0276503540974917 / std::sqrt(10.0);
  EXPECT_NEAR(ci10.lower, 5.5 - half10, 1e-9);
  EXPECT_NEAR(ci10.upper, 5.5 + half10, 1e-9);
}

TEST(StatsCi95, UndefinedBelowTwoValues) {
  const Interval ci = ci95_of_mean(std::vector<double>{3});
  EXPECT_TRUE(std::isnan(ci.lower));
  EXPECT_TRUE(std::isnan(ci.upper));
}

TEST(StatsSummarize, ThreeRuns) {
  const Summary s = summarize(std::vector<double>{100, 110, 105});
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.mean, 105);
  EXPECT_DOUBLE_EQ(s.stddev, 5);
  EXPECT_DOUBLE_EQ(s.min, 100);
  EXPECT_DOUBLE_EQ(s.max, 110);
  EXPECT_DOUBLE_EQ(s.median, 105);
  EXPECT_NEAR(s.ci95.upper - s.mean, 4.3026527297494618 * 5 / std::sqrt(3.0), 1e-9);
  EXPECT_DOUBLE_EQ(s.rel_stddev_pct, 100.0 * 5 / 105);
  ASSERT_TRUE(s.stable.has_value());
  EXPECT_FALSE(*s.stable);
}

TEST(StatsSummarize, SkipsNaN) {
  const Summary with_nan = summarize(std::vector<double>{kNaN, 100, 110, kNaN, 105});
  const Summary without = summarize(std::vector<double>{100, 110, 105});
  EXPECT_EQ(with_nan.n, 3u);
  EXPECT_DOUBLE_EQ(with_nan.mean, without.mean);
  EXPECT_DOUBLE_EQ(with_nan.stddev, without.stddev);
  EXPECT_DOUBLE_EQ(with_nan.min, without.min);
  EXPECT_DOUBLE_EQ(with_nan.max, without.max);
  EXPECT_DOUBLE_EQ(with_nan.median, without.median);
  EXPECT_DOUBLE_EQ(with_nan.ci95.lower, without.ci95.lower);
}

TEST(StatsSummarize, StableBelowTwoPercent) {
  const Summary s = summarize(std::vector<double>{-1000, -1001, -1002});
  EXPECT_DOUBLE_EQ(s.rel_stddev_pct, 100.0 / 1001);  // relative to |mean|
  ASSERT_TRUE(s.stable.has_value());
  EXPECT_TRUE(*s.stable);
}

TEST(StatsSummarize, OneRunHasNoSpreadAndNoStability) {
  const Summary s = summarize(std::vector<double>{42, kNaN});
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.mean, 42);
  EXPECT_DOUBLE_EQ(s.min, 42);
  EXPECT_DOUBLE_EQ(s.max, 42);
  EXPECT_DOUBLE_EQ(s.median, 42);
  EXPECT_TRUE(std::isnan(s.stddev));
  EXPECT_TRUE(std::isnan(s.ci95.lower));
  EXPECT_TRUE(std::isnan(s.ci95.upper));
  EXPECT_TRUE(std::isnan(s.rel_stddev_pct));
  EXPECT_FALSE(s.stable.has_value());
}

TEST(StatsSummarize, ZeroMeanHasNoRelativeSpread) {
  const Summary s = summarize(std::vector<double>{-1, 1});
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.0));
  EXPECT_TRUE(std::isnan(s.rel_stddev_pct));
  EXPECT_FALSE(s.stable.has_value());
}

TEST(StatsSummarize, NoValues) {
  for (const auto& values : {std::vector<double>{}, std::vector<double>{kNaN, kNaN}}) {
    const Summary s = summarize(values);
    EXPECT_EQ(s.n, 0u);
    for (double v :
         {s.mean, s.stddev, s.min, s.max, s.median, s.ci95.lower, s.ci95.upper, s.rel_stddev_pct})
      EXPECT_TRUE(std::isnan(v));
    EXPECT_FALSE(s.stable.has_value());
  }
}
