// kprof._core: the C++ library as seen from Python. The Python package (kprof) builds the
// user-facing API on top; nothing here computes a statistic.
#include <nanobind/stl/string.h>

#include <string>

#include "common.hpp"
#include "kprof/version.hpp"

NB_MODULE(_core, m) {
  namespace nb = nanobind;
  m.doc() = "kprof's C++ core (nanobind bindings). Use the kprof package, not this module.";
  // Python callables kept by Options (derive, combine) live as long as their Options; objects
  // alive at exit are expected, not leaks worth a warning.
  nb::set_leak_warnings(false);

  m.def(
      "version", [] { return std::string(kprof::version()); },
      "The C++ library's version, \"major.minor.patch\".");

  kprof::py::bind_errors(m);
  kprof::py::bind_log(m);
  // However the extension was loaded (kprof._native, or kprof.cli importing it directly), the
  // core's lines go back to standard error before the interpreter goes away.
  nb::module_::import_("atexit").attr("register")(m.attr("_reset_log_sink"));
  kprof::py::bind_progress(m);
  kprof::py::bind_display(m);
  kprof::py::bind_results(m);
  kprof::py::bind_arrays(m);
  kprof::py::bind_layout(m);
  kprof::py::bind_compare(m);
  kprof::py::bind_options(m);
  kprof::py::bind_profile(m);
  kprof::py::bind_annotate(m);
  kprof::py::bind_system(m);
  kprof::py::bind_demo(m);
  kprof::py::bind_metrics(m);
  kprof::py::bind_cli(m);
}
