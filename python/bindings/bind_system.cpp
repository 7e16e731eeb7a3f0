// query_system() as plain dicts: works without a GPU or driver.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.hpp"
#include "kprof/device.hpp"
#include "kprof/rank.hpp"

namespace kprof::py {
namespace {

nb::dict device_dict(const kprof::DeviceInfo& d) {
  nb::dict out;
  out["ordinal"] = d.ordinal;
  out["name"] = d.name;
  out["pci_bus_id"] = d.pci_bus_id;
  out["compute_capability"] = nb::make_tuple(d.cc_major, d.cc_minor);
  out["sm_count"] = d.sm_count;
  out["memory_bytes"] = d.memory_bytes;
  out["l2_bytes"] = d.l2_bytes;
  out["compute_clock_khz"] = d.compute_clock_khz;
  out["memory_clock_khz"] = d.memory_clock_khz;
  return out;
}

nb::dict system_dict() {
  kprof::SystemInfo s;
  {
    nb::gil_scoped_release release;  // may load the driver and query every device
    s = kprof::query_system();
  }
  nb::dict out;
  out["built_with_cuda"] = s.built_with_cuda;
  out["driver_loaded"] = s.driver_loaded;
  out["driver_error"] = s.driver_error;
  out["driver_version"] = s.driver_version;
  out["driver_version_string"] =
      s.driver_version ? kprof::cuda_version_string(s.driver_version) : "";
  out["runtime_version"] = s.runtime_version;
  out["runtime_version_string"] =
      s.runtime_version ? kprof::cuda_version_string(s.runtime_version) : "";
  out["cupti_version"] = s.cupti_version;
  out["cupti_path"] = s.cupti_path;
  out["host"] = s.host;
  out["counter_permission"] = s.counter_permission;
  out["flop_counting"] = s.flop_counting;
  nb::list devices;
  for (const auto& d : s.devices) devices.append(device_dict(d));
  out["devices"] = devices;
  return out;
}

nb::dict rank_dict() {
  const kprof::RankInfo r = kprof::rank_info();
  nb::dict out;
  out["rank"] = r.rank;
  out["world_size"] = r.world_size;
  out["local_rank"] = r.local_rank;
  out["local_world_size"] = r.local_world_size;
  out["launcher"] = r.launcher;
  return out;
}

}  // namespace

void bind_system(nb::module_& m) {
  m.def("rank_info", &rank_dict,
        "This process's rank, world size, local rank and launcher, from its environment.");
  m.def("query_system", &system_dict,
        "GPUs, driver, CUDA and CUPTI versions and counter permission, as a dict. Never raises "
        "for a missing driver or GPU (driver_loaded is then False and driver_error says why).");
  m.def("rank_file_tag", &kprof::rank_file_tag, nb::arg("base"), nb::arg("rank"),
        nb::arg("world_size"), "base, and -rank<N> in a job of several processes.");
  m.def("use_device", &kprof::use_device, nb::arg("ordinal"),
        "Makes `ordinal` the current CUDA device of this thread, the one a profile measures.");
  m.def("cuda_version_string", &kprof::cuda_version_string, nb::arg("version"),
        "\"13.0\" for 13000.");
}

}  // namespace kprof::py
