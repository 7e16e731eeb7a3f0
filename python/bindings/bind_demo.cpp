// The demo kernels shipped with kprof (kprof::demo::Kernels), for examples and GPU tests.
#include "common.hpp"
#include "kprof/demo.hpp"

namespace kprof::py {

void bind_demo(nb::module_& m) {
  using kprof::demo::Kernels;
  using release = nb::call_guard<nb::gil_scoped_release>;
  nb::class_<Kernels>(m, "DemoKernels",
                      "Kernels with device buffers for vectors of up to max_elements floats. "
                      "Raises NoGpuError without a GPU. All launch on the default stream.")
      .def(nb::init<std::size_t>(), nb::arg("max_elements"), release())
      .def("scale", &Kernels::scale, nb::arg("n"), nb::arg("a") = 2.0f, release(),
           "y = a * x over n floats (memory bound, 8 bytes per element).")
      .def("add", &Kernels::add, nb::arg("n"), release(),
           "z = x + y over n floats (memory bound, 12 bytes per element).")
      .def("scale_add", &Kernels::scale_add, nb::arg("n"), nb::arg("a") = 2.0f, release(),
           "z = x + a * x over n floats: scale and add fused (8 bytes per element).")
      .def("fma", &Kernels::fma, nb::arg("n"), nb::arg("iterations"), release(),
           "n threads each run `iterations` dependent FMAs (compute bound).")
      .def("spin", &Kernels::spin, nb::arg("microseconds"), release(),
           "Busy-waits for `microseconds` on every SM.")
      .def("synchronize", &Kernels::synchronize, release(),
           "Waits for every launched kernel; raises CudaError on a launch error.");
}

}  // namespace kprof::py
