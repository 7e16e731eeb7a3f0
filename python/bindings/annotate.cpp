// _core.Annotation: an annotation that Python opens and closes explicitly, through the same
// functions kprof::Annotation (RAII) is built on (include/kprof/annotate.hpp).
#include "kprof/annotate.hpp"

#include <nanobind/stl/string.h>

#include <string>

#include "common.hpp"

namespace kprof::py {
namespace {

class PyAnnotation {
 public:
  explicit PyAnnotation(const std::string& name)
      : name_(name), handle_(kprof::open_annotation(name)), open_(true) {}
  // Closes the region; `failed` makes this run's values of it NaN. Raises AnnotationError
  // when it is not the innermost open annotation of this thread.
  void close(bool failed) {
    if (!open_) return;
    open_ = false;
    kprof::close_annotation(handle_, failed);
  }
  bool is_open() const { return open_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  AnnotationHandle handle_;
  bool open_;
};

}  // namespace

void bind_annotate(nb::module_& m) {
  nb::class_<PyAnnotation>(m, "Annotation",
                           "An open kprof annotation (region and NVTX range in domain 'kprof'). "
                           "Opened by the constructor, closed by close(failed=False); raises "
                           "AnnotationError for an empty name, a name with '/', a name opened "
                           "twice in one run, or a close out of order.")
      .def(nb::init<const std::string&>(), nb::arg("name"))
      .def("close", &PyAnnotation::close, nb::arg("failed") = false)
      .def_prop_ro("open", &PyAnnotation::is_open)
      .def_prop_ro("name", &PyAnnotation::name);
}

}  // namespace kprof::py
