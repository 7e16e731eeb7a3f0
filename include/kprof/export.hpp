// Results in the formats of the tools people already use, beside kprof's own JSON and CSV.
#pragma once

#include <string>
#include <string_view>

#include "kprof/results.hpp"

namespace kprof {

// Google Benchmark's JSON (its --benchmark_format=json), so that its tools/compare.py and the
// dashboards that read that format take kprof's results unchanged: a benchmark per annotation
// and config ("scale/n:1024", "/kernel:1" added per kernel), named as Google Benchmark names
// benchmarks with named arguments; one repetition per run (run_type "iteration") and the mean,
// median and stddev aggregates of the rows. real_time and cpu_time hold the duration
// (gpu__time_duration.sum) in `time_unit` ("ns", "us", "ms" or "s"): a GPU has no CPU time,
// and compare.py compares both. Every other metric rides along as a counter, a key of its own.
// Throws OptionError for another time unit, FormatError for results without durations.
std::string to_google_benchmark_json(const Results& results, std::string_view time_unit = "ns");
// The same, written to `path` whole or not at all (a temporary file, then a rename); throws
// Error when it cannot be written.
void write_google_benchmark_json(const Results& results, const std::string& path,
                                 std::string_view time_unit = "ns");

// The Chrome trace event format (chrome://tracing, Perfetto's ui.perfetto.dev): the kernels as
// slices at their GPU times on a track per stream, the annotations around them on a track of
// their own (a region's slice spans its kernels; nested regions nest), the configs and runs on
// a third; times in microseconds from the first kernel. Needs the kernels' GPU timestamps,
// which durations measured alone keep (activity records); throws FormatError for results
// without them (counters, files saved before kprof kept them).
std::string to_chrome_trace_json(const Results& results);
// The same, written to `path` whole or not at all; throws Error when it cannot be written.
void write_chrome_trace(const Results& results, const std::string& path);

}  // namespace kprof
