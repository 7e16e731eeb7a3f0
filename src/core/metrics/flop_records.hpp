// set:flop's instruction counts as records, from one counted call of each config: what a pass of
// CUPTI's SASS metrics API (SassCounter) counted in each region, joined to the kernels the
// measured runs recorded there. The counts of a kernel are the same in every run (they depend on
// the code and the launch, not the clock), so one call per config stands for every run.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/metrics/sass_opcodes.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

// What one region of one config's counted call executed: per function, as the SASS records name
// it (mangled), the thread instructions of each FlopClass (flop_counts()).
struct RegionFlop {
  std::size_t config = 0;
  std::string annotation;  // the region's path, as records name it
  std::map<std::string, FlopCounts> functions;
};

// One record per measured kernel launch, run and FlopClass (flop_metric()'s names, unit "inst"):
// the region's counts of the kernel's function, split evenly over its launches of that function
// in the run (one call cannot tell them apart). With `whole_regions` (range replay, whose record
// measures a region with its nested regions and names the kernels it launched, "a|b"), a record
// gets everything its region counted, split over the region's openings in the run. The launches are
// the records of `measured` with its first metric that set:flop does not count, less a failed run's
// NaN records of a region that launched nothing (they hold set:flop's classes already). A launch
// whose region or function (any function a whole-region record names) was not counted gets NaN, so
// that the results say "not measured" rather than "no FLOP". Function names are demangled
// (kprof::demangle) to meet the records' kernel names.
std::vector<Record> flop_records(const std::vector<RegionFlop>& counted,
                                 const std::vector<Record>& measured, bool whole_regions);

}  // namespace kprof::detail
