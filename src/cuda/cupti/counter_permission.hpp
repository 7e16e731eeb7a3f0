// Whether this process may read GPU hardware counters (ERR_NVGPUCTRPERM), found without
// touching the GPU.
#pragma once

#include <string>

namespace kprof::detail {

// "yes (root)", "yes (profiling open to all users)", "no: restricted to admin users (...)" or
// "unknown (...)". Never throws.
std::string counter_permission();

}  // namespace kprof::detail
