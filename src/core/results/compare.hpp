// The statistics behind kprof::compare (include/kprof/compare.hpp): the Mann-Whitney U test
// and the verdict rule, as plain functions that tests check against scipy.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "kprof/compare.hpp"

namespace kprof::detail {

// The exact test is used while the smaller sample has at most this many values (scipy's
// mannwhitneyu switches at the same size) and both together at most kExactMaxTotal (the
// exact distribution costs ~ small^2 * total^2 operations).
inline constexpr std::size_t kExactMaxSmall = 8;
inline constexpr std::size_t kExactMaxTotal = 1000;

struct MannWhitney {
  double u = 0;  // U of x: the number of pairs (x_i, y_j) with x_i > y_j, ties counting 1/2
  double p = 1;  // two-sided p-value
  TestMethod method = TestMethod::none;
};

// Two-sided Mann-Whitney U test of x against y (no NaN in either; NaN u and p when one is
// empty). Ranks are midranks (ties share the mean of their ranks).
//
// TestMethod::exact (min(|x|, |y|) <= kExactMaxSmall and |x| + |y| <= kExactMaxTotal): the exact
// permutation distribution of U given the observed midranks, counted by dynamic programming
// over the subsets of ranks: p = min(1, 2 * min(P(U' <= U), P(U' >= U))). Without ties this is
// the classic exact distribution (scipy method="exact"); with ties it is the exact conditional
// distribution (scipy method=PermutationMethod() when every permutation is enumerated), where
// scipy's default would fall back to the normal approximation.
//
// TestMethod::normal (otherwise): z = (max(U, n1 n2 - U) - n1 n2 / 2 - 1/2) / sigma with
// sigma^2 = n1 n2 / 12 * (n + 1 - sum(t^3 - t) / (n (n - 1))) over the tie groups t,
// p = min(1, 2 * (1 - Phi(z))); p = 1 when every value is tied. This is scipy's
// method="asymptotic" with use_continuity=True.
MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y);

// The smallest two-sided p-value the exact test can give for sample sizes n1 and n2, reached
// when the two samples do not overlap at all: 2 / C(n1 + n2, n1) (at most 1).
double min_two_sided_p(std::size_t n1, std::size_t n2);

// Whether lower values of a metric in `unit` are better: time units (ns, us, ms, s and their
// Nsight Compute spellings).
bool lower_is_better(const std::string& unit);

// The verdict of a compared row (rules at kprof::Verdict). `change_pct` may be NaN or +-inf.
Verdict decide(double change_pct, double p_value, std::size_t base_runs, std::size_t new_runs,
               bool lower_better, const CompareOptions& options);

// 100 * (next - base) / |base|; 0 when both are 0, +-inf when only base is 0.
double change_pct(double base, double next);

}  // namespace kprof::detail
