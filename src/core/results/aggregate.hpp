// From raw records to samples (kernels combined, metrics derived) to rows (statistics,
// normalization, geomean). The one place where these rules live.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "kprof/options.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

// Combines the kernels of each (config, run, annotation, metric) with options.combine (or
// keeps them apart with options.per_kernel), then appends derived metrics from
// options.derive. Throws MeasurementError when a region launched several kernels in a run and
// options.combine is CombineKind::none (naming the region, the kernels and what to do).
std::vector<Sample> make_samples(const std::vector<Record>& records, const Options& options);

// The records that make a region's values: its kernels; in a region that launched no kernel,
// its copies and memsets. A copy beside kernels stays in the raw records only, so that a
// region's values are the kernels' as in Nsight Compute, which sees no copy. An outer region
// holds its nested regions' records: one with a kernel anywhere inside is valued by kernels.
std::vector<Record> value_records(std::span<const Record> records);

// The same rule on records as they arrive, so that a sweep stops at the first config that
// breaks it rather than after its last: MeasurementError when a region launched several
// kernels in a run and options neither combine them nor keep them apart.
void require_one_kernel_per_region(std::span<const Record> records, const Options& options);

// Calls options.derive on the first region of `records` whose metrics all have values, so that
// a derive function that cannot work on them (an exception, a value it may not return) stops
// the sweep at the first values measured, not after the last run. Returns whether it was
// called (false: no derive function, or no region with values yet); throws what derive throws.
bool check_derive(std::span<const Record> records, const Options& options);

// Statistics per (annotation, config, metric[, kernel_index]), then normalization against
// options.normalize_against (AnnotationError naming the config that has no baseline), then the
// geomean per (annotation, metric[, kernel_index]).
std::vector<Row> make_rows(const std::vector<Sample>& samples, const Options& options);

// Sets every row's Geomean: the geometric mean of the means of its (annotation, metric[,
// kernel_index]) over the configs, those whose mean is NaN (every run failed) left out, as
// pandas' mean does.
void add_geomeans(std::vector<Row>& rows);

// The raw data of a profile besides its records: how each config stopped, the conditions of
// each run, the info collectors' values.
struct Conditions {
  std::vector<ConfigInfo> configs;
  std::vector<RunInfo> runs;
  std::vector<InfoValue> info;
  std::vector<SourceSample> source;  // set:source's pass: the regions' sampled instructions
};

// Fills each row's RunsDone, StoppedBy, MeasuredClock (mean of the config's runs' SM clock),
// Temperature (mean), ThrottledRuns (count; NaN when no run's clock is known), ProfilingOverhead
// and info columns. `warmup`: the warm-up calls each config had (profiled_seconds_per_run).
void add_conditions(std::vector<Row>& rows, const Conditions& conditions, int warmup);

// A config's wall time per profiled run, against which its unprofiled call tells what profiling
// added: the mean over its runs (RunInfo::seconds, by run index), the first left out when no
// warm-up call took the first call's compiling and loading and a later run is there. NaN
// without runs.
double profiled_seconds_per_run(const std::vector<std::pair<int, double>>& runs, int warmup);

// The info collector columns of each row: per collector (in order of first appearance), a
// once-scope value or a collector that gave text -> one value (the first of the row's); numbers
// per config, run or annotation -> mean, sample std-dev, min and max of the row's values (its
// config's, and for annotation scope its annotation's).
void add_info(std::vector<Row>& rows, const std::vector<InfoValue>& info);

// make_samples + make_rows (+ add_conditions) into a Results.
Results aggregate(SessionInfo session, Sweep sweep, std::vector<Record> records,
                  const Options& options);
Results aggregate(SessionInfo session, Sweep sweep, std::vector<Record> records,
                  const Options& options, Conditions conditions);

}  // namespace kprof::detail
