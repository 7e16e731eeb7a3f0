// Opening and closing annotations without RAII, for front ends whose scopes are not C++
// scopes (Python's context managers). kprof::Annotation is built on these.
#pragma once

#include <cstdint>
#include <string>

namespace kprof::detail {

// Opens the region `name` on this thread and its NVTX range; returns a handle for exit.
// Throws AnnotationError (same annotation twice in one run, bad name).
std::uint32_t annotation_enter(const std::string& name);
// Closes the innermost region of this thread; `failed` makes this run's values NaN.
// Throws AnnotationError when `handle` is not the innermost open annotation.
void annotation_exit(std::uint32_t handle, bool failed);

}  // namespace kprof::detail
