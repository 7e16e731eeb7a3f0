#include "core/measure/stopping.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "core/results/aggregate.hpp"
#include "kprof/stats.hpp"

namespace kprof::detail {

std::string to_string(StopReason r) {
  switch (r) {
    case StopReason::runs:
      return "runs";
    case StopReason::precision:
      return "precision";
    case StopReason::max_runs:
      return "max_runs";
    case StopReason::time_budget:
      return "time_budget";
    case StopReason::error:
      return "error";
  }
  return "?";
}

PrecisionCheck check_precision(const std::vector<Record>& records, const Options& options,
                               double rel_half_width) {
  Options measured = options;  // kernels combined as configured, no derived metrics
  measured.derive = nullptr;
  const std::vector<Sample> samples = make_samples(records, measured);
  std::map<std::tuple<std::string, std::string, int>, std::vector<double>> groups;
  std::vector<std::tuple<std::string, std::string, int>> order;
  for (const Sample& s : samples) {
    const auto key = std::tuple(s.annotation, s.metric, s.kernel_index);
    auto [it, added] = groups.try_emplace(key);
    if (added) order.push_back(key);
    it->second.push_back(s.value);
  }
  PrecisionCheck check;
  check.met = true;
  for (const auto& key : order) {
    const std::vector<double>& values = groups[key];
    const Summary sum = summarize(values);
    if (sum.n == 0) continue;  // every run of it failed: nothing to estimate
    const int runs = static_cast<int>(values.size());
    double share = std::numeric_limits<double>::infinity();
    int needed = 2 * runs;  // one valid value: no spread yet, double the runs
    bool ok = false;
    if (sum.n >= 2) {
      const double half = 0.5 * (sum.ci95.upper - sum.ci95.lower);
      const double scale = rel_half_width * std::abs(sum.mean);
      if (sum.mean != 0) share = half / std::abs(sum.mean);
      if (half <= scale) {
        ok = true;
        share = std::min(share, rel_half_width);
        needed = runs;
      } else if (scale > 0) {
        const double t = student_t_quantile(0.975, static_cast<double>(sum.n - 1));
        const double valid_needed = std::ceil(std::pow(t * sum.stddev / scale, 2));
        // Failed runs give no value: scale the valid runs needed up to runs made.
        const double per_valid = static_cast<double>(runs) / static_cast<double>(sum.n);
        needed = static_cast<int>(std::min(valid_needed * per_valid, 1e9));
      }
    }
    if (!ok) {
      check.met = false;
      needed = std::max(needed, runs + 1);
    }
    if (check.worst.empty() || share > check.worst_half_width) {
      check.worst = std::get<0>(key) + ", " + std::get<1>(key);
      check.worst_half_width = share;
    }
    check.runs_needed = std::max(check.runs_needed, needed);
  }
  return check;
}

int next_checkpoint(int done, int needed, const StoppingRule& rule) {
  const int low = done + std::max(1, done / 4);
  const int high = 2 * done;
  return std::min(std::clamp(needed, low, std::max(low, high)), rule.max_runs);
}

}  // namespace kprof::detail
