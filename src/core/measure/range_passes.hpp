// The bookkeeping of the range profiler's sessions that needs no GPU: which ranges measured
// something, whether a later pass repeated the first, how a range's name gives its index, and
// what to say when auto ranges and launches do not pair up. Used by the counter backends
// (src/cuda).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::detail {

inline constexpr std::size_t kNoParentRange = static_cast<std::size_t>(-1);

// Range n measured something when it, or a range nested in it, launched a kernel.
// `kernels[n]`: the kernels range n launched itself; `parent[n]`: the range it is nested in,
// or kNoParentRange.
std::vector<bool> ranges_with_kernels(const std::vector<std::vector<std::string>>& kernels,
                                      const std::vector<std::size_t>& parent);

// The first range whose kernels in a later pass differ from the first pass's (a range the
// later pass did not reach launched none), or nothing when the passes agree.
std::optional<std::size_t> first_changed_range(const std::vector<std::vector<std::string>>& first,
                                               const std::vector<std::vector<std::string>>& later);

// The index of a user range named by kprof ("3"; nested, CUPTI joins the names: "1/3"): its
// innermost component, or `fallback` when that is not a number.
std::size_t range_index(const std::string& name, std::size_t fallback);

// Why a replay mode of auto ranges ('kernel', 'application') cannot measure a CUDA graph
// launch, and what to use instead.
std::string graph_launch_with_auto_ranges(std::string_view replay_mode,
                                          const std::string& what_happened);

// The MeasurementError text for a kernel-replay session whose auto ranges (one per kernel)
// do not pair up with the launches kprof saw.
std::string unpaired_auto_ranges(std::string_view replay_mode, std::size_t ranges,
                                 std::size_t launches, bool graph_launched);

// The UnsupportedError text when a CUPTI older than the driver made no auto range at all, as
// CUPTI 12.6 and 12.8 did under a CUDA 13 driver (the H200, docs/validation.md); "" when that
// is not the case. Versions as cuptiGetVersion and cudaDriverGetVersion give them.
std::string no_auto_ranges_from_older_cupti(std::string_view replay_mode, std::size_t ranges,
                                            std::size_t launches, int cupti_version,
                                            int driver_version);

}  // namespace kprof::detail
