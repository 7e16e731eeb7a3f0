// _core.annotation_open / annotation_close: kprof::open_annotation and close_annotation for
// kprof.annotate, whose objects, not C++ scopes, own the regions they open.
#include <nanobind/stl/string.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "common.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"

namespace kprof::py {
namespace {

// A region that an annotate object opened, and that object, held (a strong reference) while
// the region is open so that no other object can take its address.
struct OpenRegion {
  PyObject* owner;
  AnnotationHandle handle;
};

// This thread's open regions of annotate objects, innermost last. An object's regions on this
// thread are its entries here, in order, so the same object may be entered recursively (as a
// decorator) and from several threads at once. Kept here rather than in a threading.local:
// that costs more than the region itself. The entries of a thread that ends with an object
// entered and never left are leaked, not released without the GIL.
thread_local std::vector<OpenRegion> t_open;

// The name's UTF-8 text. A str that has none (a lone surrogate, as a file name decoded with
// surrogateescape has) is refused as a name, not as a call with the wrong arguments.
std::string utf8_name(nb::handle name) {
  if (!PyUnicode_Check(name.ptr()))
    throw nb::type_error(("an annotation name must be a str, not " +
                          nb::cast<std::string>(nb::str(name.type().attr("__name__"))))
                             .c_str());
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(name.ptr(), &size);
  if (text == nullptr) {
    PyErr_Clear();
    throw AnnotationError("annotation name " + nb::cast<std::string>(nb::repr(name)) +
                          " is not valid UTF-8 text (a lone surrogate); valid: text that "
                          "encodes as UTF-8");
  }
  return {text, static_cast<std::size_t>(size)};
}

void open(nb::handle owner, nb::handle name) {
  const AnnotationHandle handle = open_annotation(utf8_name(name));
  t_open.push_back({owner.inc_ref().ptr(), handle});
}

// Closes the innermost region that `owner` opened on this thread; false when it has none.
bool close(nb::handle owner, bool failed) {
  const auto it = std::find_if(t_open.rbegin(), t_open.rend(),
                               [&](const OpenRegion& r) { return r.owner == owner.ptr(); });
  if (it == t_open.rend()) return false;
  const AnnotationHandle handle = it->handle;
  try {
    close_annotation(handle, failed);
  } catch (const AnnotationError&) {  // out of order: refused before anything closed
    throw;
  } catch (...) {  // closed, but a hook of the profile failed: the region is gone all the same
    t_open.erase(std::next(it).base());
    owner.dec_ref();
    throw;
  }
  t_open.erase(std::next(it).base());
  owner.dec_ref();  // the caller still holds it
  return true;
}

}  // namespace

void bind_annotate(nb::module_& m) {
  m.def("annotation_open", &open, nb::arg("owner"), nb::arg("name"),
        "Opens the kprof annotation `name` on this thread for `owner` (region and NVTX range "
        "in domain 'kprof'). Raises AnnotationError for a name that is not valid (empty, too "
        "long, blank, with a control character or '/', not UTF-8) or opened twice in one run.");
  m.def("annotation_close", &close, nb::arg("owner"), nb::arg("failed"),
        "Closes the innermost annotation that `owner` opened on this thread; `failed` makes "
        "this run's values of it NaN. False when `owner` has none open on this thread. Raises "
        "AnnotationError when it is not the innermost open annotation of this thread.");
}

}  // namespace kprof::py
