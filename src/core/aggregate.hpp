// From raw records to samples (kernels combined, metrics derived) to rows (statistics,
// normalization, geomean). The one place where these rules live.
#pragma once

#include <vector>

#include "kprof/options.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

// Combines the kernels of each (config, run, annotation, metric) with options.combine (or
// keeps them apart with options.per_kernel), then appends derived metrics from
// options.derive. Throws MeasurementError when several kernels of a non-additive metric
// meet CombineKind::automatic (naming the region, the kernels and what to do).
std::vector<Sample> make_samples(const std::vector<Record>& records, const Options& options);

// Statistics per (annotation, config, metric[, kernel_index]), then normalization against
// options.normalize_against (AnnotationError naming the config that has no baseline), then the
// geomean per (annotation, metric[, kernel_index]).
std::vector<Row> make_rows(const std::vector<Sample>& samples, const Options& options);

// make_samples + make_rows into a Results.
Results aggregate(SessionInfo session, Sweep sweep, std::vector<Record> records,
                  const Options& options);

}  // namespace kprof::detail
