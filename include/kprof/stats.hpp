// Statistics as plain functions, as kprof computes every column of its results: the front ends
// and C++ users compute alike. NaN values are skipped by summarize(); the other functions
// expect values without NaN.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace kprof {

double mean(std::span<const double> v);
double sample_stddev(std::span<const double> v);  // n-1 in the denominator; NaN for n < 2
double median(std::span<const double> v);
// Geometric mean; NaN when empty or when any value is <= 0 (a log of zero means nothing).
double geomean(std::span<const double> v);

// Inverse CDF of Student's t distribution with `df` degrees of freedom.
double student_t_quantile(double p, double df);

// Two-sided 95% interval of the mean: mean -/+ t(0.975, n-1) * s / sqrt(n).
// NaN bounds for n < 2.
struct Interval {
  double lower;
  double upper;
};
Interval ci95_of_mean(std::span<const double> v);

// The threshold of StableMeasurement, as nsight-python: relative std-dev below 2%.
inline constexpr double kStableRsdPct = 2.0;

struct Summary {
  std::size_t n = 0;  // values that are not NaN
  double mean, stddev, min, max, median;
  Interval ci95;
  double rel_stddev_pct;       // 100 * stddev / |mean|; NaN when mean is 0 or n < 2
  std::optional<bool> stable;  // rel_stddev_pct < 2; unset when undefined
};
Summary summarize(std::span<const double> values);

}  // namespace kprof
