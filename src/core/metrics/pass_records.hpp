// The values a pass of its own (core/measure/extra_pass.hpp) took in one call of each config, per
// region and function, as records joined to the kernels the measured runs recorded there: what
// set:flop counted and what set:source sampled become records like the backends' (a region,
// kernel and metric each), so rows, files and front ends carry them unchanged.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "kprof/results.hpp"

namespace kprof::detail {

// What one region of one config's call took: per function, as the GPU names it (mangled), a
// value per metric of the pass (in the order of PassMetrics::names).
struct RegionValues {
  std::size_t config = 0;
  std::string annotation;  // the region's path, as records name it
  std::map<std::string, std::vector<double>> functions;
};

// The metrics of a pass, as its records name them, and their unit.
struct PassMetrics {
  std::vector<std::string> names;
  std::string unit;
  // A function that ran in a region taken but is missing from its values: not measured (NaN:
  // set:flop counts every function that runs) or none of it was taken (0: sampling may miss a
  // short kernel in a long region).
  bool missing_is_zero = false;
};

// Adds `values` to `sum`, element by element, `sum` growing to their length.
void add_values(std::vector<double>& sum, const std::vector<double>& values);

// Whether a pass of its own gives `metric` (set:flop's classes, the sampled metrics) rather
// than the backend's measured runs.
bool taken_by_a_pass(const std::string& metric);

// One record per measured kernel launch, run and metric: the region's values of the kernel's
// function, split evenly over its launches of that function in the run (one call cannot tell
// them apart). With `whole_regions` (range replay, whose record measures a region with its
// nested regions and names the kernels it launched, "a|b"), a record gets everything its region
// took, split over the region's openings in the run. The launches are the records of `measured`
// with its first metric that no pass takes (taken_by_a_pass), less a failed run's NaN records of a
// region that launched nothing. A launch whose region or function (any function a whole-region
// record names) was not taken gets NaN, so that the results say "not measured" rather than 0.
// Function names are demangled (kprof::demangle) to meet the records' kernel names.
std::vector<Record> pass_records(const std::vector<RegionValues>& taken, const PassMetrics& metrics,
                                 const std::vector<Record>& measured, bool whole_regions);

}  // namespace kprof::detail
