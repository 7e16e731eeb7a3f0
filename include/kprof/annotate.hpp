// Marking the code to measure: a named region, open for the lifetime of an Annotation.
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

}  // namespace kprof
