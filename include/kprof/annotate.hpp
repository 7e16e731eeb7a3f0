// Marking the code to measure: a named region, open for the lifetime of an Annotation, or
// between open_annotation and close_annotation where the scope is not a C++ scope.
#pragma once

#include <cstdint>
#include <string>

namespace kprof {

// Opens the region `name` until destruction. Kernels launched while it is open, from this
// thread or, when this thread has no open region, from any thread while the profiling thread
// has it open, are measured and attributed to it. Regions nest: an inner region's path is
// "outer/inner", and an outer region's values include the kernels of its inner regions.
// Also opens an NVTX range `name` in the NVTX domain "kprof".
//
//   kprof::profile(options, sweep, [&](const kprof::Config& c) {
//     kprof::Annotation a("matmul");
//     launch_matmul(c.get_int("n"));
//   });
class Annotation {
 public:
  explicit Annotation(const std::string& name);
  ~Annotation();
  Annotation(const Annotation&) = delete;
  Annotation& operator=(const Annotation&) = delete;

  // Marks this run of the region as failed: its values become NaN and the sweep goes on
  // (what nsight-python's annotate(ignore_failures=True) does when its body raises).
  void mark_failed() noexcept;

 private:
  std::uint32_t id_;
  bool failed_ = false;
};

// The same region opened and closed by hand, for front ends whose scopes are not C++ scopes
// (Python's context managers); Annotation is built on these two functions. The handle is
// opaque and is closed once, on the thread that opened it, innermost region first.
using AnnotationHandle = std::uint32_t;

// Opens the region `name` on this thread and its NVTX range, as Annotation's constructor does.
// Throws AnnotationError for a name that is empty, longer than 256 bytes, only blanks, or has a
// control character or '/'; and for a path opened twice in one run of a profile.
AnnotationHandle open_annotation(const std::string& name);

// Closes the region `handle` and its NVTX range; `failed` makes this run's values of it NaN
// (Annotation::mark_failed). Throws AnnotationError when `handle` is not the innermost open
// region of this thread, inside a profile or not; then nothing closes, its NVTX range included.
void close_annotation(AnnotationHandle handle, bool failed);

}  // namespace kprof
