#include "core/measure/range_passes.hpp"

#include <charconv>
#include <string>
#include <string_view>

#include "kprof/device.hpp"

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

std::string no_auto_ranges_from_older_cupti(std::string_view replay_mode, std::size_t ranges,
                                            std::size_t launches, int cupti_version,
                                            int driver_version) {
  const bool cupti_12 = cupti_version > 0 && cupti_version < 130000;  // 12.x reports 17 to 29
  if (ranges != 0 || launches == 0 || !cupti_12 || driver_version < 13000) return "";
  return "CUPTI " + format_cupti_version(cupti_version) + " made no per-kernel range for " +
         std::to_string(launches) + " launches under this driver of CUDA " +
         std::to_string(driver_version / 1000) + "." + std::to_string(driver_version % 1000 / 10) +
         ", as CUPTI 12 does under CUDA 13 drivers: replay_mode='" + std::string(replay_mode) +
         "' needs a CUPTI of the driver's CUDA (kprof built for CUDA 13, with the "
         "nvidia-cuda-cupti wheel); replay_mode='range' measures regions with this one";
}

}  // namespace kprof::detail
