#include "kprof/stalls.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
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

std::vector<InstructionShare> instruction_shares(const Results& results) {
  if (results.source().empty())
    throw OptionError("metrics", "results without sampled instructions",
                      "a profile that sampled warps (metrics=[\"set:source\"])");
  using Region = std::pair<std::string, std::size_t>;                  // annotation, config
  using Place = std::tuple<std::string, std::uint32_t, std::int64_t>;  // kernel, cubin, offset
  struct Instruction {
    const SourceSample* first = nullptr;
    double samples = 0;
    double top = -1;
    std::string top_reason;
  };
  std::vector<Region> order;
  std::map<Region, std::map<Place, Instruction>> regions;
  std::map<Region, double> totals;
  for (const SourceSample& s : results.source()) {
    if (metrics::is_not_issued(s.reason)) continue;
    const Region region{s.annotation, s.config};
    auto [at, added] = regions.try_emplace(region);
    if (added) order.push_back(region);
    Instruction& in = at->second[{s.kernel, s.cubin, s.pc_offset}];
    if (in.first == nullptr) in.first = &s;
    in.samples += s.samples;
    totals[region] += s.samples;
    if (s.samples > in.top) {
      in.top = s.samples;
      in.top_reason = s.reason;
    }
  }
  std::vector<InstructionShare> out;
  for (const Region& region : order) {
    const std::string name = region_name(results, region.first, region.second, -1);
    const std::size_t first = out.size();
    for (const auto& [place, in] : regions[region]) {
      const SourceSample& s = *in.first;
      out.push_back({region.first, region.second, s.kernel, name, s.cubin, s.pc_offset, s.sass,
                     s.file, s.line, in.samples, 100.0 * in.samples / totals[region],
                     in.top_reason});
    }
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                     [](const auto& a, const auto& b) { return a.samples > b.samples; });
  }
  return out;
}

namespace {

bool is_source_file(const std::string& file) {
  constexpr std::string_view kEndings[] = {".cu",  ".cuh", ".c",  ".cc",  ".cpp",
                                           ".cxx", ".h",   ".hh", ".hpp", ".py"};
  return std::any_of(std::begin(kEndings), std::end(kEndings),
                     [&](std::string_view e) { return file.ends_with(e); });
}

std::vector<std::string> file_lines(const std::string& file) {
  std::vector<std::string> lines;
  if (!is_source_file(file)) return lines;
  std::ifstream in(file);
  for (std::string text; std::getline(in, text);) lines.push_back(std::move(text));
  return lines;
}

std::string line_of(const std::vector<std::string>& lines, int number) {
  if (number < 1 || static_cast<std::size_t>(number) > lines.size()) return "";
  const std::string& text = lines[static_cast<std::size_t>(number) - 1];
  const std::size_t begin = text.find_first_not_of(" \t");
  return begin == std::string::npos ? "" : text.substr(begin);
}

// A file's lines, read once; none where it cannot be read (results from another machine).
class SourceFiles {
 public:
  std::string line(const std::string& file, int number) {
    auto [at, added] = files_.try_emplace(file);
    if (added) at->second = file_lines(file);
    return line_of(at->second, number);
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string source_text(const std::vector<InstructionShare>& shares, std::size_t per_region) {
  constexpr int kBarWidth = 20;
  std::string out =
      "where the warps waited, each region's hottest instructions in % of its warp "
      "samples:\n";
  SourceFiles files;
  const InstructionShare* last = nullptr;
  std::size_t shown = 0;
  for (const InstructionShare& s : shares) {
    if (last == nullptr || s.annotation != last->annotation || s.config != last->config) {
      out += s.region + "  (" + s.kernel + ")\n";
      shown = 0;
    }
    last = &s;
    if (shown == per_region || !(s.share_pct >= kStallShownPct)) continue;
    ++shown;
    std::string pct = format_number(s.share_pct, 3) + "%";
    pct.insert(0, pct.size() < 7 ? 7 - pct.size() : 0, ' ');
    std::string bar(static_cast<std::size_t>(std::lround(s.share_pct / 100.0 * kBarWidth)), '#');
    bar.resize(kBarWidth, ' ');
    std::string reason = s.top_reason;
    reason.resize(std::max<std::size_t>(reason.size(), 16), ' ');
    char offset[32];
    std::snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(s.pc_offset));
    std::string place = s.line > 0 ? base_name(s.file) + ":" + std::to_string(s.line) : offset;
    place.resize(std::max<std::size_t>(place.size(), 22), ' ');
    std::string sass = s.sass;
    sass.resize(std::max<std::size_t>(sass.size(), 6), ' ');
    out += "  " + pct + " " + bar + " " + reason + " " + place + " " + sass;
    if (const std::string text = s.line > 0 ? files.line(s.file, s.line) : ""; !text.empty())
      out += " | " + text;
    out.erase(out.find_last_not_of(' ') + 1);
    out += "\n";
  }
  return out;
}

std::vector<std::string> source_line_texts(const std::vector<std::string>& files,
                                           const std::vector<int>& lines) {
  SourceFiles read;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < files.size() && i < lines.size(); ++i)
    out.push_back(read.line(files[i], lines[i]));
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
