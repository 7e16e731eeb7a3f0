// kprof::compare_source: where two measurements of the same regions waited, place by place
// (include/kprof/stalls.hpp). Pure arithmetic over the sampled instructions of saved results.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"
#include "kprof/stalls.hpp"
#include "kprof/sweep.hpp"
#include "kprof/units.hpp"

namespace kprof {
namespace {

using Place = std::tuple<std::string, std::string, int>;  // kernel, file, line

// A region's samples per place and reason, and in all.
struct Sampled {
  std::size_t config = 0;
  double total = 0;
  std::map<Place, std::map<std::string, double>> places;
};

// A config as its parameter values, so that configs match across sweeps by value.
std::string config_key(const Sweep& sweep, std::size_t config) {
  std::string key;
  if (config >= sweep.size()) return key;
  const std::vector<Value> point = sweep.point(config);
  for (std::size_t i = 0; i < point.size() && i < sweep.names().size(); ++i)
    key += sweep.names()[i] + "=" + std::to_string(point[i].index()) + ":" + to_string(point[i]) +
           "\n";
  return key;
}

// The regions of `results` by (annotation, config key), in the order of their first sample.
std::vector<std::pair<std::pair<std::string, std::string>, Sampled>> sampled_regions(
    const Results& results, const char* side) {
  if (results.source().empty())
    throw OptionError("metrics", std::string(side) + ": results without sampled instructions",
                      "a profile that sampled warps (metrics=[\"set:source\"])");
  std::vector<std::pair<std::pair<std::string, std::string>, Sampled>> regions;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const SourceSample& s : results.source()) {
    if (metrics::is_not_issued(s.reason)) continue;  // a part of its reason's samples
    std::pair<std::string, std::string> key{s.annotation, config_key(results.sweep(), s.config)};
    const auto [at, added] = index.try_emplace(key, regions.size());
    if (added) regions.push_back({std::move(key), Sampled{s.config, 0, {}}});
    Sampled& region = regions[at->second].second;
    const Place place = s.line > 0 ? Place{s.kernel, s.file, s.line} : Place{s.kernel, "", 0};
    region.places[place][s.reason] += s.samples;
    region.total += s.samples;
  }
  return regions;
}

double pct(double samples, double total) { return total > 0 ? 100.0 * samples / total : 0; }

double sum(const std::map<std::string, double>& reasons) {
  double total = 0;
  for (const auto& [reason, samples] : reasons) total += samples;
  return total;
}

// The place's change of each reason's share, in points, the largest first.
std::vector<std::pair<std::string, double>> reason_changes(
    const std::map<std::string, double>* base, double base_total,
    const std::map<std::string, double>* next, double next_total) {
  std::map<std::string, double> change;
  if (base != nullptr)
    for (const auto& [reason, samples] : *base) change[reason] -= pct(samples, base_total);
  if (next != nullptr)
    for (const auto& [reason, samples] : *next) change[reason] += pct(samples, next_total);
  std::vector<std::pair<std::string, double>> out(change.begin(), change.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::fabs(a.second) > std::fabs(b.second);
  });
  return out;
}

}  // namespace

std::vector<SourceChange> compare_source(const Results& base, const Results& next) {
  const auto base_regions = sampled_regions(base, "BASE");
  const auto next_regions = sampled_regions(next, "NEW");
  std::map<std::pair<std::string, std::string>, const Sampled*> in_next;
  for (const auto& [key, region] : next_regions) in_next[key] = &region;
  std::vector<SourceChange> out;
  for (const auto& [key, b] : base_regions) {
    const auto found = in_next.find(key);
    if (found == in_next.end()) continue;
    const Sampled& n = *found->second;
    const std::string name = region_name(base, key.first, b.config, -1);
    std::set<Place> places;  // each place of either, once
    for (const auto& [place, reasons] : b.places) places.insert(place);
    for (const auto& [place, reasons] : n.places) places.insert(place);
    const std::size_t first = out.size();
    for (const Place& place : places) {
      const auto bp = b.places.find(place);
      const auto np = n.places.find(place);
      const auto* br = bp == b.places.end() ? nullptr : &bp->second;
      const auto* nr = np == n.places.end() ? nullptr : &np->second;
      out.push_back({key.first, name, std::get<0>(place), std::get<1>(place), std::get<2>(place),
                     br ? pct(sum(*br), b.total) : 0, nr ? pct(sum(*nr), n.total) : 0,
                     reason_changes(br, b.total, nr, n.total)});
    }
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                     [](const SourceChange& x, const SourceChange& y) {
                       return std::fabs(x.new_pct - x.base_pct) > std::fabs(y.new_pct - y.base_pct);
                     });
  }
  if (out.empty()) {
    std::string names;
    for (const auto& [key, region] : base_regions)
      if (names.find("'" + key.first + "'") == std::string::npos)
        names += (names.empty() ? "'" : ", '") + key.first + "'";
    throw FormatError(
        "nothing to compare: no region was sampled in both results (BASE " +
        (names.empty() ? std::string("has only _not_issued samples") : "sampled " + names) +
        "; a region matches by its annotation and its config's parameters)");
  }
  return out;
}

std::string source_comparison_text(const std::vector<SourceChange>& changes,
                                   std::size_t per_region) {
  std::string out =
      "where the warps waited, BASE -> NEW, in % of each region's warp samples (change in "
      "points):\n";
  std::size_t shown = 0;
  for (std::size_t k = 0; k < changes.size(); ++k) {
    const SourceChange& c = changes[k];
    if (k == 0 || c.region != changes[k - 1].region) {
      out += c.region + "\n";
      // Places come largest change first: when the first is too small to show, so are all.
      if (!(std::fabs(c.new_pct - c.base_pct) >= kStallShownPct))
        out += "  no place changed by " + format_number(kStallShownPct, 3) + " point or more\n";
      else
        out += "     base      new   change  place\n";
      shown = 0;
    }
    const double change = c.new_pct - c.base_pct;
    if (shown == per_region || !(std::fabs(change) >= kStallShownPct)) continue;
    ++shown;
    const auto column = [](std::string text) {
      text.insert(0, text.size() < 8 ? 8 - text.size() : 0, ' ');
      return text;
    };
    std::string place = c.file.empty()
                            ? c.kernel + " (no line information)"
                            : c.file.substr(c.file.rfind('/') + 1) + ":" + std::to_string(c.line);
    std::string reasons;
    for (std::size_t i = 0; i < c.reasons.size() && i < 3; ++i) {
      if (!(std::fabs(c.reasons[i].second) >= kStallShownPct)) break;
      const std::string points = format_number(c.reasons[i].second, 2);
      reasons += (reasons.empty() ? "" : ", ") + c.reasons[i].first + " " +
                 (c.reasons[i].second > 0 ? "+" : "") + points;
    }
    out += " " + column(format_number(c.base_pct, 3) + "%") + " " +
           column(format_number(c.new_pct, 3) + "%") + " " +
           column((change > 0 ? "+" : "") + format_number(change, 2)) + "  " + place;
    if (!reasons.empty()) out += "  (" + reasons + ")";
    out += "\n";
  }
  return out;
}

}  // namespace kprof
