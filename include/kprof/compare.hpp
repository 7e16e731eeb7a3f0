// Comparing two saved results: did the new measurement get faster, slower, or stay the same?
//
// Rows of the two results are matched by (annotation, metric, config, kernel index), where
// configs are matched by their parameter values (names and values), not by their position in
// the sweep. For each matched row: the change of the mean in %, whether the 95% intervals
// overlap, a two-sided Mann-Whitney U test over the per-run samples, and a verdict. The rules
// are described next to each field and in docs/compare.md.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof {

struct CompareOptions {
  // Smallest |change of the mean| in % that counts as a change (>= 0).
  double threshold_pct = 2.0;
  // Significance level of the two-sided Mann-Whitney U test, in (0, 1).
  double alpha = 0.05;
  // Only rows of these metrics; empty: every metric. A name found in neither result is an
  // OptionError.
  std::vector<std::string> metrics;

  // Throws OptionError naming the option, the value and what is valid.
  void validate() const;
};

// What a matched row says.
//   not_enough_runs  fewer than kMinCompareRuns runs with a value on a side, or sample sizes
//                    for which no outcome of the test reaches alpha (3 runs against 3: the
//                    smallest two-sided p is 0.1)
//   faster / slower  time metrics (units ns, us, ms, s), where lower is better: p < alpha and
//                    |change| >= threshold; faster when the new mean is lower
//   lower / higher   the same for every other metric, which has no known better direction
//   same             otherwise: not significant, or significant but smaller than threshold
enum class Verdict { same, faster, slower, lower, higher, not_enough_runs };
const char* to_string(Verdict v);  // "same", "faster", ..., "not enough runs"

inline constexpr std::size_t kMinCompareRuns = 3;

// How the p-value was computed (see mann_whitney_u in src/core/results/compare.hpp).
enum class TestMethod {
  exact,   // exact permutation distribution of U given the ranks, ties included
  normal,  // normal approximation, tie and continuity corrected
  none,    // no test: a side has no value
};
const char* to_string(TestMethod m);  // "exact", "normal", "none"

// One parameter of a config: its name and value.
struct Param {
  std::string name;
  Value value;
  friend bool operator==(const Param&, const Param&) = default;
};

// A row of one result that has no counterpart in the other.
struct UnmatchedRow {
  std::string annotation;
  std::string metric;
  std::vector<Param> config;     // the config's parameters, as that result names them
  std::size_t config_index = 0;  // index into that result's sweep
  int kernel_index = -1;         // per-kernel rows only; else -1
  double mean = 0;
  std::size_t num_runs = 0;
  std::string unit;
};

// A row present in both results.
struct ComparedRow {
  std::string annotation;
  std::string metric;
  std::vector<Param> config;    // as the base result names them
  std::size_t base_config = 0;  // index into the base result's sweep
  std::size_t new_config = 0;   // index into the new result's sweep
  int kernel_index = -1;
  std::string unit;  // base's unit; the new values are converted into it when they differ
  double base_mean = 0;
  double new_mean = 0;
  // 100 * (new - base) / |base|; +-inf when the base mean is 0 and the new one is not.
  double change_pct = 0;
  // Whether the two CI95 intervals intersect; unset when either has no interval (one run).
  std::optional<bool> ci_overlap;
  double u = 0;  // Mann-Whitney U of the base sample (scipy's statistic for x = base)
  double p_value = 1;
  TestMethod method = TestMethod::none;
  std::size_t base_runs = 0;  // per-run samples with a value
  std::size_t new_runs = 0;
  Verdict verdict = Verdict::same;
};

struct Comparison {
  CompareOptions options;
  std::vector<ComparedRow> rows;           // in the base result's row order
  std::vector<UnmatchedRow> only_in_base;  // in the base result's row order
  std::vector<UnmatchedRow> only_in_new;   // in the new result's row order
  // Reasons to distrust the comparison: the sessions differ in GPU, backend, cache control,
  // clock control or replay mode; rows whose units do not convert or whose normalization
  // differs (left out of rows and of the only-in lists).
  std::vector<std::string> warnings;

  std::size_t count(Verdict v) const;
  bool any_slower() const { return count(Verdict::slower) > 0; }

  // Warnings, an aligned table of the rows (means scaled to readable units), the rows found in
  // one result only, and a summary line.
  std::string table() const;
};

// Compares `next` against `base`. Throws OptionError for invalid options, and FormatError
// ("nothing to compare: ...") when no row could be compared: none is in both (saying which of
// annotations, metrics or parameters differ), or those in both cannot be compared (units that
// do not convert, normalized against plain values). A comparison that compared nothing is no
// evidence that nothing got slower.
Comparison compare(const Results& base, const Results& next, const CompareOptions& options = {});

std::ostream& operator<<(std::ostream& os, const Comparison& c);

}  // namespace kprof
