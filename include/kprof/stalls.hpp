// Why each region's warps waited: set:source's warp samples (kprof/metrics.hpp's
// sampled_metrics) as each stall reason's share of the region's samples, the share of the warps'
// time they spent on it. Pure arithmetic over Results: works on saved results, without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kprof/results.hpp"

namespace kprof {

struct StallShare {
  std::string annotation;
  std::size_t config = 0;
  std::string kernel;
  int kernel_index = -1;  // per kernel only
  std::string region;     // as reports name it (region_name): "softmax (n=4096)"
  std::string reason;     // "long_scoreboard"
  double samples = 0;     // the region's samples of the reason (mean over runs)
  double share_pct = 0;   // of the region's samples (smsp__pcsamp_sample_count)
};

// Per region (annotation and config, and kernel per kernel), in the order of the rows, each
// stall reason with samples, most first: the plain reasons, whose shares add up to 100% (the
// `_not_issued` variants, a part of their reason's samples, are left out). Throws OptionError
// (option "metrics") for results without smsp__pcsamp_sample_count (profile with
// metrics=["set:source"]) or normalized ones.
std::vector<StallShare> stall_shares(const Results& results);

// The share of a region's samples from which a reason is shown in the text and the HTML report.
inline constexpr double kStallShownPct = 1.0;

// The shares as `kprof report --stalls` prints them: a heading, then per region its reasons of
// kStallShownPct or more, with a bar.
std::string stalls_text(const std::vector<StallShare>& shares);

// Where a region's warps waited: one of its sampled instructions (Results::source()), with its
// samples of the plain reasons (each sampled warp has one) and their share of the region's.
struct InstructionShare {
  std::string annotation;
  std::size_t config = 0;
  std::string kernel;
  std::string region;  // as reports name it (region_name)
  std::uint32_t cubin = 0;
  std::int64_t pc_offset = 0;
  std::string sass;
  std::string file;
  int line = 0;
  double samples = 0;
  double share_pct = 0;    // of the region's sampled instructions' samples
  std::string top_reason;  // the reason most of its samples had
};

// Per region (annotation and config), in the order of the source table, each sampled
// instruction, most samples first. Throws OptionError (option "metrics") for results without
// sampled instructions (profile with metrics=["set:source"]).
std::vector<InstructionShare> instruction_shares(const Results& results);

// The hottest instructions as `kprof report --source` prints them: a heading, then per region
// its `per_region` most sampled instructions of kStallShownPct or more, each with its share, a
// bar, the reason most of its samples had, its file:line (or its offset) and SASS, and the
// line's text where the file can be read here.
std::string source_text(const std::vector<InstructionShare>& shares, std::size_t per_region = 10);

// The text of each `files[i]`'s line `lines[i]` (1-based), leading blanks removed, as
// source_text and the HTML report show it, each file read once; empty where the file cannot be
// read here, the line is not in it, or the file is not source code by its name (.cu, .cuh, .c,
// .cc, .cpp, .cxx, .h, .hh, .hpp, .py): a results file names the files it shows, and other
// files are not shown.
std::vector<std::string> source_line_texts(const std::vector<std::string>& files,
                                           const std::vector<int>& lines);

// One place of a region's code in two results: a source line where the code has line
// information, else the kernel's instructions without it, as a whole.
struct SourceChange {
  std::string annotation;
  std::string region;  // as reports name it in the base results (region_name)
  std::string kernel;
  std::string file;     // empty: the kernel's instructions without line information
  int line = 0;         // 0 with no file
  double base_pct = 0;  // the place's share of the region's warp samples in the base results
  double new_pct = 0;   // and in the new ones; 0 where it has no sample there
  // Per stall reason, the change of the share of the region's samples that waited at this
  // place for it, in percentage points (new - base); the largest changes first.
  std::vector<std::pair<std::string, double>> reasons;
};

// Where two measurements of the same regions waited: for each region sampled in both (the
// annotation, and a config of the same parameter values), each place sampled in either, the
// largest changes of share first. Shares, not samples: two runs differ in duration and period.
// Throws OptionError (option "metrics") where a result has no sampled instructions, and
// FormatError ("nothing to compare: ...") where no region was sampled in both.
std::vector<SourceChange> compare_source(const Results& base, const Results& next);

// The changes as `kprof compare BASE NEW --source` prints them: per region, its `per_region`
// places of largest change (of kStallShownPct points or more), with both shares, the change,
// and the reasons that changed most.
std::string source_comparison_text(const std::vector<SourceChange>& changes,
                                   std::size_t per_region = 10);

}  // namespace kprof
