#include "kprof/stalls.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"
#include "kprof/units.hpp"

namespace kprof {
namespace {

using Key = std::tuple<std::string, std::size_t, int>;  // annotation, config, kernel index

struct Region {
  std::string kernel;
  double count = std::nan("");
  std::vector<std::pair<std::string, double>> reasons;
};

}  // namespace

std::vector<StallShare> stall_shares(const Results& results) {
  std::vector<std::pair<Key, Region>> regions;
  std::map<Key, std::size_t> index;
  bool sampled = false;
  for (const Row& row : results.rows()) {
    const bool count = row.metric == metrics::kSampleCountMetric;
    const std::string_view reason = metrics::stall_reason_of(row.metric);
    if (!count && (reason.empty() || metrics::is_not_issued(reason))) continue;
    if (!row.normalized_against.empty())
      throw OptionError("normalize_against", "'" + row.normalized_against + "'",
                        "no normalization for stalls(): shares need the samples themselves");
    const Key key{row.annotation, row.config, row.kernel_index};
    auto [it, added] = index.emplace(key, regions.size());
    if (added) regions.push_back({key, Region{row.kernel, std::nan(""), {}}});
    Region& region = regions[it->second].second;
    if (count) {
      region.count = row.mean;
      sampled = true;
    } else {
      region.reasons.emplace_back(std::string(reason), row.mean);
    }
  }
  if (!sampled)
    throw OptionError("metrics", "results without " + std::string(metrics::kSampleCountMetric),
                      "a profile that sampled warps (metrics=[\"set:source\"])");
  std::vector<StallShare> out;
  for (auto& [key, region] : regions) {
    std::stable_sort(region.reasons.begin(), region.reasons.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [reason, samples] : region.reasons) {
      if (!(samples > 0)) continue;
      out.push_back({std::get<0>(key), std::get<1>(key), region.kernel, std::get<2>(key),
                     region_name(results, std::get<0>(key), std::get<1>(key), std::get<2>(key)),
                     reason, samples,
                     region.count > 0 ? 100.0 * samples / region.count : std::nan("")});
    }
  }
  return out;
}

std::string stalls_text(const std::vector<StallShare>& shares) {
  constexpr int kBarWidth = 40;
  std::string out = "why the warps waited, in % of each region's warp samples:\n";
  const StallShare* last = nullptr;
  for (const StallShare& s : shares) {
    if (last == nullptr || s.region != last->region) out += s.region + "\n";
    last = &s;
    if (!(s.share_pct >= kStallShownPct)) continue;
    std::string name = s.reason;
    name.resize(std::max<std::size_t>(name.size(), 20), ' ');
    std::string pct = format_number(s.share_pct, 3) + "%";
    pct.insert(0, pct.size() < 7 ? 7 - pct.size() : 0, ' ');
    const int bar = static_cast<int>(std::lround(s.share_pct / 100.0 * kBarWidth));
    out += "  " + name + " " + pct + "  " + std::string(static_cast<std::size_t>(bar), '#') + "\n";
  }
  return out;
}

}  // namespace kprof
