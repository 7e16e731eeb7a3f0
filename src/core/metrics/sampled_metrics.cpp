// The warp-sampling metrics kprof provides (kprof::metrics::sampled_metrics): names, units and
// descriptions. Pure data: works in every build; the values come from the sampling pass
// (core/measure/sampling_pass.cpp) and src/cuda (pc_sampler.cpp).
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/metrics.hpp"

namespace kprof::metrics {
namespace {

constexpr std::string_view kPrefix = "smsp__pcsamp_";
constexpr std::string_view kStallPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

struct Reason {
  std::string_view name;
  std::string_view description;
};

// CUPTI 13.0's stall reasons on Hopper (the H200), in Nsight Compute's words.
constexpr Reason kReasons[] = {
    {"barrier", "waiting for sibling warps at a barrier (__syncthreads)"},
    {"branch_resolving", "waiting for a branch target to be computed"},
    {"dispatch_stall", "the dispatcher held the warp back"},
    {"drain", "waiting for memory stores to drain after EXIT"},
    {"imc_miss", "waiting for an immediate constant cache miss"},
    {"lg_throttle", "the local/global memory instruction queue was full"},
    {"long_scoreboard", "waiting for an L1TEX (global, local, texture) result"},
    {"math_pipe_throttle", "the math pipe the instruction needs was busy"},
    {"membar", "waiting on a memory barrier"},
    {"mio_throttle", "the MIO instruction queue (shared memory, special math) was full"},
    {"misc", "a rare reason of its own"},
    {"no_instructions", "no instruction fetched yet (an instruction cache miss, a branch)"},
    {"not_selected", "eligible, but another warp was issued"},
    {"selected", "issued (not a stall)"},
    {"short_scoreboard", "waiting for an MIO result (shared memory, special math)"},
    {"sleeping", "all threads of the warp asleep (nanosleep, a yield)"},
    {"tex_throttle", "the texture unit's queue was full"},
    {"wait", "waiting for a fixed-latency dependency"},
    {"warpgroup_arrive", "waiting at a warpgroup arrive barrier (wgmma)"},
};

// The metrics' names and descriptions, and the list of views into them, made once.
struct Table {
  std::vector<std::string> names, descriptions;
  std::vector<LaunchMetric> metrics;
  Table() {
    names.emplace_back(kSampleCountMetric);
    descriptions.emplace_back("Warp samples of the region's kernels, of every reason");
    for (const Reason& r : kReasons) {
      names.push_back(stall_metric(r.name));
      descriptions.push_back("Warp samples " + std::string(r.description));
    }
    for (const Reason& r : kReasons) {
      names.push_back(stall_metric(std::string(r.name) + std::string(kNotIssued)));
      descriptions.push_back("Warp samples " + std::string(r.description) +
                             ", of warps not issued that cycle");
    }
    for (std::size_t i = 0; i < names.size(); ++i)
      metrics.push_back({names[i], "sample", descriptions[i]});
  }
};

}  // namespace

const std::vector<LaunchMetric>& sampled_metrics() {
  static const Table table;
  return table.metrics;
}

bool is_sampled_metric(std::string_view name) {
  if (!name.starts_with(kPrefix)) return false;
  const auto& all = sampled_metrics();
  return std::any_of(all.begin(), all.end(), [&](const LaunchMetric& m) { return m.name == name; });
}

std::string stall_metric(std::string_view reason) {
  return std::string(kStallPrefix) + std::string(reason);
}

std::string_view stall_reason_of(std::string_view metric) {
  return metric.starts_with(kStallPrefix) ? metric.substr(kStallPrefix.size()) : "";
}

bool is_not_issued(std::string_view reason) { return reason.ends_with(kNotIssued); }

}  // namespace kprof::metrics
