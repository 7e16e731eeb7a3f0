// The one error every GPU entry point of a build without CUDA throws: kBuiltWithoutCuda, and
// what `needs` it where that helps ("the metric catalog needs CUPTI's Profiler Host API").
#pragma once

#include <string>
#include <string_view>

#include "kprof/errors.hpp"

namespace kprof::detail {

inline std::string built_without_cuda_text(std::string_view needs = {}) {
  std::string text(kBuiltWithoutCuda);
  if (!needs.empty()) text.append(", and ").append(needs);
  return text.append("; ").append(kRebuildWithCuda);
}

inline NoGpuError built_without_cuda(std::string_view needs = {}) {
  return NoGpuError(built_without_cuda_text(needs));
}

}  // namespace kprof::detail
