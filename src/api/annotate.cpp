#include "kprof/annotate.hpp"

#include "core/measure/gpu_layer.hpp"
#include "core/measure/region_tracker.hpp"
#include "kprof/errors.hpp"

namespace kprof {

AnnotationHandle open_annotation(const std::string& name) {
  const detail::RegionId id = detail::RegionTracker::instance().open(name);
  detail::nvtx_push(name);
  return id;
}

void close_annotation(AnnotationHandle handle, bool failed) {
  // The region first: closed out of order it is refused (AnnotationError) before anything
  // closes, its NVTX range included; closed, its range ends even when a hook of the profile
  // then fails.
  try {
    detail::RegionTracker::instance().close(handle, failed);
  } catch (const AnnotationError&) {
    throw;
  } catch (...) {
    detail::nvtx_pop();
    throw;
  }
  detail::nvtx_pop();
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
