// The test and the verdict behind kprof::compare (core/results/compare.hpp): the Mann-Whitney
// U test, exact for small samples and by the normal approximation beyond, and the change that
// decides a row's verdict.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "core/results/compare.hpp"
#include "kprof/units.hpp"

namespace kprof {

namespace detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Midranks of x followed by y, doubled so that they are integers ((i + j) / 2 for a tie group
// over ranks i..j becomes i + j), and the sizes of the tie groups.
struct Ranks {
  std::vector<long long> doubled;
  std::vector<std::size_t> tie_sizes;  // groups of 2 or more equal values
};

Ranks doubled_midranks(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = x.size() + y.size();
  const auto value = [&](std::size_t i) { return i < x.size() ? x[i] : y[i - x.size()]; };
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return value(a) < value(b); });
  Ranks r{std::vector<long long>(n), {}};
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first + 1;  // one past the group of values equal to value(order[first])
    while (last < n && value(order[last]) == value(order[first])) ++last;
    // 1-based ranks first + 1 .. last share (first + 1 + last) / 2.
    for (std::size_t k = first; k < last; ++k)
      r.doubled[order[k]] = static_cast<long long>(first + 1 + last);
    if (last - first > 1) r.tie_sizes.push_back(last - first);
    first = last;
  }
  return r;
}

// counts[s]: how many ways there are to pick `m` of `ranks` with sum s.
std::vector<double> subset_sum_counts(std::vector<long long> ranks, std::size_t m) {
  std::sort(ranks.begin(), ranks.end());
  const long long max_sum = std::accumulate(ranks.end() - static_cast<long>(m), ranks.end(), 0LL);
  std::vector<std::vector<double>> ways(m + 1, std::vector<double>(max_sum + 1, 0.0));
  ways[0][0] = 1;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    for (std::size_t k = std::min(i + 1, m); k >= 1; --k)
      for (long long s = max_sum; s >= ranks[i]; --s) ways[k][s] += ways[k - 1][s - ranks[i]];
  return ways[m];
}

// The permutation distribution of the rank sum of the smaller sample: the share of subsets
// with a sum at most and at least the observed one; the smaller share, doubled, is p.
double exact_p(const Ranks& r, std::size_t n1, std::size_t n2) {
  const bool x_smaller = n1 <= n2;
  const std::size_t m = x_smaller ? n1 : n2;
  const auto begin = r.doubled.begin() + (x_smaller ? 0 : static_cast<long>(n1));
  const long long observed = std::accumulate(begin, begin + static_cast<long>(m), 0LL);
  const std::vector<double> counts = subset_sum_counts(r.doubled, m);
  double at_most = 0, at_least = 0, total = 0;
  for (std::size_t s = 0; s < counts.size(); ++s) {
    total += counts[s];
    if (static_cast<long long>(s) <= observed) at_most += counts[s];
    if (static_cast<long long>(s) >= observed) at_least += counts[s];
  }
  return std::min(1.0, 2 * std::min(at_most, at_least) / total);
}

double normal_p(const Ranks& r, double u, std::size_t n1, std::size_t n2) {
  const double a = static_cast<double>(n1), b = static_cast<double>(n2), n = a + b;
  double tie_term = 0;
  for (std::size_t t : r.tie_sizes) tie_term += std::pow(static_cast<double>(t), 3) - t;
  const double sigma = std::sqrt(a * b / 12 * ((n + 1) - tie_term / (n * (n - 1))));
  if (!(sigma > 0)) return 1;  // every value tied: nothing tells the samples apart
  const double z = (std::max(u, a * b - u) - a * b / 2 - 0.5) / sigma;
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));  // 2 * (1 - Phi(z))
}

}  // namespace

MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) return {kNaN, kNaN, TestMethod::none};
  const std::size_t n1 = x.size(), n2 = y.size();
  const Ranks r = doubled_midranks(x, y);
  const long long r1_doubled = std::accumulate(r.doubled.begin(), r.doubled.begin() + n1, 0LL);
  const double u = static_cast<double>(r1_doubled) / 2 - static_cast<double>(n1 * (n1 + 1)) / 2;
  if (std::min(n1, n2) <= kExactMaxSmall && n1 + n2 <= kExactMaxTotal)
    return {u, exact_p(r, n1, n2), TestMethod::exact};
  return {u, normal_p(r, u, n1, n2), TestMethod::normal};
}

double min_two_sided_p(std::size_t n1, std::size_t n2) {
  const std::size_t k = std::min(n1, n2), n = n1 + n2;
  double combinations = 1;  // C(n, k), built so that every step is an integer
  for (std::size_t i = 1; i <= k; ++i)
    combinations = combinations * static_cast<double>(n - k + i) / static_cast<double>(i);
  return std::min(1.0, 2 / combinations);
}

bool lower_is_better(const std::string& unit) { return unit_factor(unit, "ns").has_value(); }

double change_pct(double base, double next) {
  if (base == 0) return next == 0 ? 0 : std::copysign(kInf, next);
  return 100 * (next - base) / std::fabs(base);
}

Verdict decide(double change, double p_value, std::size_t base_runs, std::size_t new_runs,
               bool lower_better, const CompareOptions& options) {
  if (std::min(base_runs, new_runs) < kMinCompareRuns ||
      min_two_sided_p(base_runs, new_runs) >= options.alpha)
    return Verdict::not_enough_runs;
  // NaN compares false: a NaN p or change is never a change.
  if (!(p_value < options.alpha && std::fabs(change) >= options.threshold_pct))
    return Verdict::same;
  if (lower_better) return change < 0 ? Verdict::faster : Verdict::slower;
  return change < 0 ? Verdict::lower : Verdict::higher;
}

}  // namespace detail

}  // namespace kprof
