#include "kprof/annotate.hpp"

#include "api/annotation_api.hpp"
#include "api/gpu.hpp"
#include "core/region_tracker.hpp"

namespace kprof {
namespace detail {

std::uint32_t annotation_enter(const std::string& name) {
  RegionId id = RegionTracker::instance().open(name);
  nvtx_push(name);
  return id;
}

void annotation_exit(std::uint32_t handle, bool failed) {
  nvtx_pop();
  RegionTracker::instance().close(handle, failed);
}

}  // namespace detail

Annotation::Annotation(const std::string& name) : id_(detail::annotation_enter(name)) {}

Annotation::~Annotation() {
  try {
    detail::annotation_exit(id_, failed_);
  } catch (...) {  // RAII scopes close in order; nothing useful to do in a destructor
  }
}

void Annotation::mark_failed() noexcept { failed_ = true; }

}  // namespace kprof
