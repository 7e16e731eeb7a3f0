// The stopping rule: when a config has run often enough (docs/conditions.md).
//
// Durations arrive only when the backend collects (a device synchronize and one CUPTI
// activity flush; its cost: docs/validation.md), so the rule cannot look after every run: flushing
// per run would cost more than many kernels it measures, and synchronizing after every run changes
// how the runs overlap with the host. The engine therefore runs a batch, collects once, and
// evaluates: first after min_runs runs, then at checkpoints that grow geometrically (at least
// +25%, at most doubling, aimed at the run count the current interval predicts), so that a
// config needs O(log(max_runs / min_runs)) collections and overshoots its need by at most
// one batch.
#pragma once

#include <string>
#include <vector>

#include "kprof/options.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

// Why a config stopped; the text is ConfigInfo::stopped_by.
enum class StopReason { runs, precision, max_runs, time_budget, error };
std::string to_string(StopReason r);

struct PrecisionCheck {
  bool met = false;
  // The total runs the least precise group needs, from its current spread:
  // (t * s / (target * |mean|))^2. Equals the runs done when met.
  int runs_needed = 0;
  std::string worst;            // "annotation, metric" of the least precise group
  double worst_half_width = 0;  // its half-width as a share of |mean| (inf: not estimable)
};

// Evaluates the rule on the raw records of one config. The groups are the config's
// (annotation, measured metric[, kernel index]) after kernels are combined as `options` says
// (derived metrics are not evaluated: derive_metric is the user's code, and its inputs are
// these groups). Groups whose runs all failed (NaN) are left out; every other group must have
// a 95% interval of half-width <= rel_half_width * |mean|, from two runs or more.
PrecisionCheck check_precision(const std::vector<Record>& records, const Options& options,
                               double rel_half_width);

// The run count at which to collect next, after `done` runs of which the check predicted
// `needed`: within [done + max(1, done / 4), 2 * done], never beyond max_runs.
int next_checkpoint(int done, int needed, const StoppingRule& rule);

}  // namespace kprof::detail
