#include "kprof/annotate.hpp"

#include "core/gpu_layer.hpp"
#include "core/region_tracker.hpp"

namespace kprof {

AnnotationHandle open_annotation(const std::string& name) {
  const detail::RegionId id = detail::RegionTracker::instance().open(name);
  detail::nvtx_push(name);
  return id;
}

void close_annotation(AnnotationHandle handle, bool failed) {
  auto& tracker = detail::RegionTracker::instance();
  tracker.check_closes(handle);  // out of order: refused before its NVTX range ends too
  detail::nvtx_pop();
  tracker.close(handle, failed);
}

Annotation::Annotation(const std::string& name) : id_(open_annotation(name)) {}

Annotation::~Annotation() {
  try {
    close_annotation(id_, failed_);
  } catch (...) {  // RAII scopes close in order; nothing useful to do in a destructor
  }
}

void Annotation::mark_failed() noexcept { failed_ = true; }

}  // namespace kprof
