#include "core/range_passes.hpp"

#include <charconv>
#include <string_view>

namespace kprof::detail {

std::vector<bool> ranges_with_kernels(const std::vector<std::vector<std::string>>& kernels,
                                      const std::vector<std::size_t>& parent) {
  std::vector<bool> measured(kernels.size(), false);
  for (std::size_t n = 0; n < kernels.size(); ++n) {
    if (kernels[n].empty()) continue;
    for (std::size_t p = n; p < measured.size() && !measured[p];
         p = p < parent.size() ? parent[p] : kNoParentRange)
      measured[p] = true;
  }
  return measured;
}

std::optional<std::size_t> first_changed_range(const std::vector<std::vector<std::string>>& first,
                                               const std::vector<std::vector<std::string>>& later) {
  const std::vector<std::string> none;
  for (std::size_t n = 0; n < first.size() || n < later.size(); ++n) {
    const auto& a = n < first.size() ? first[n] : none;
    const auto& b = n < later.size() ? later[n] : none;
    if (a != b) return n;
  }
  return std::nullopt;
}

std::size_t range_index(const std::string& name, std::size_t fallback) {
  const std::size_t slash = name.find_last_of('/');
  const std::string_view last =
      std::string_view(name).substr(slash == std::string::npos ? 0 : slash + 1);
  std::size_t n = fallback;
  const auto [end, error] = std::from_chars(last.data(), last.data() + last.size(), n);
  return !last.empty() && error == std::errc() && end == last.data() + last.size() ? n : fallback;
}

std::string graph_launch_with_auto_ranges(std::string_view replay_mode,
                                          const std::string& what_happened) {
  return "replay_mode='" + std::string(replay_mode) +
         "' cannot tell which kernels of a CUDA graph launch belong to which annotation (" +
         what_happened + "); profile graphs with replay_mode='range'";
}

std::string unpaired_auto_ranges(std::string_view replay_mode, std::size_t ranges,
                                 std::size_t launches, bool graph_launched) {
  const std::string counts = "the range profiler returned " + std::to_string(ranges) +
                             " kernel ranges for " + std::to_string(launches) + " launches";
  if (graph_launched) return graph_launch_with_auto_ranges(replay_mode, counts);
  return counts +
         "; kernels launched without a launch API kprof watches cannot be attributed (try "
         "replay_mode='range')";
}

}  // namespace kprof::detail
