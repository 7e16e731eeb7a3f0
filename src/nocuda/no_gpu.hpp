// The one error every GPU entry point of a build without CUDA throws.
#pragma once

#include "kprof/errors.hpp"

namespace kprof::detail {

inline NoGpuError built_without_cuda() {
  return NoGpuError("kprof was built without CUDA support; rebuild with the CUDA toolkit");
}

}  // namespace kprof::detail
