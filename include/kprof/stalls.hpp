// Why each region's warps waited: set:source's warp samples (kprof/metrics.hpp's
// sampled_metrics) as each stall reason's share of the region's samples, the share of the warps'
// time they spent on it. Pure arithmetic over Results: works on saved results, without a GPU.
#pragma once

#include <cstddef>
#include <string>
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

}  // namespace kprof
