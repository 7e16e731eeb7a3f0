// `kprof devices`: the GPUs and the CUDA stack as kprof sees them.
#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "kprof/errors.hpp"
#include "kprof/version.hpp"

namespace kprof::cli {

std::optional<std::string> process_env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string driver_problem(const SystemInfo& sys) {
  if (sys.driver_loaded) return "";
  // The CUDA runtime reports driver version 0 exactly when it could not load libcuda.so.1 at
  // all (an old driver still reports its version): say that plainly rather than the runtime's
  // "missing or too old".
  if (sys.built_with_cuda && sys.driver_version == 0 && sys.driver_error.rfind("query", 0) != 0) {
    return "no NVIDIA driver found (libcuda.so.1 could not be loaded)";
  }
  if (!sys.driver_error.empty()) return strip_no_gpu_prefix(sys.driver_error);
  return "the NVIDIA driver cannot be used";
}

std::string strip_no_gpu_prefix(const std::string& message) {
  std::string out = one_line(message);
  if (out.starts_with(kNoGpuAvailable)) out.erase(0, kNoGpuAvailable.size());
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

std::string no_gpu_reason(const SystemInfo& sys, const EnvFn& env) {
  if (!sys.built_with_cuda) return std::string(kBuiltWithoutCuda);
  if (!sys.driver_loaded) return driver_problem(sys);
  if (sys.devices.empty()) {
    const auto visible = env("CUDA_VISIBLE_DEVICES");
    return "the NVIDIA driver shows no CUDA device" +
           (visible ? " (CUDA_VISIBLE_DEVICES=" + *visible + ")" : std::string());
  }
  return "";
}

void print_system(const SystemInfo& sys, std::ostream& out) {
  std::vector<std::vector<std::string>> facts;
  facts.push_back({"host", sys.host.empty() ? "unknown" : sys.host});
  facts.push_back({"kprof", version()});
  facts.push_back({"driver", sys.driver_loaded
                                 ? "supports CUDA " + cuda_version_string(sys.driver_version)
                                 : "none: " + driver_problem(sys)});
  facts.push_back(
      {"CUDA runtime", sys.built_with_cuda
                           ? cuda_version_string(sys.runtime_version) + " (kprof was built with it)"
                           : "none: " + std::string(kBuiltWithoutCuda)});
  std::string cupti =
      sys.cupti_version > 0 ? format_cupti_version(sys.cupti_version) : "not loadable";
  if (sys.cupti_version > 0 && !sys.cupti_path.empty()) cupti += " (" + sys.cupti_path + ")";
  facts.push_back({"CUPTI", cupti});
  facts.push_back(
      {"counters", "permission " + (sys.counter_permission.empty() ? std::string("unknown")
                                                                   : sys.counter_permission)});
  std::string gpus = std::to_string(sys.devices.size());
  if (sys.devices.empty() && sys.built_with_cuda && sys.driver_loaded) {
    gpus += ": " + no_gpu_reason(sys);
  }
  facts.push_back({"GPUs", gpus});
  print_columns(out, facts);

  if (sys.devices.empty()) return;
  std::vector<std::vector<std::string>> table = {
      {"ordinal", "name", "cc", "SMs", "memory", "L2", "SM clock", "memory clock", "PCI bus id"}};
  for (const DeviceInfo& d : sys.devices) {
    table.push_back({std::to_string(d.ordinal), d.name,
                     std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor),
                     std::to_string(d.sm_count), format_bytes(d.memory_bytes),
                     format_bytes(d.l2_bytes), format_clock(d.compute_clock_khz),
                     format_clock(d.memory_clock_khz), d.pci_bus_id});
  }
  out << "\n";
  print_columns(out, table);
}

int command_devices(const ParsedArgs&, std::ostream& out, std::ostream&) {
  print_system(query_system(), out);
  return kExitOk;
}

}  // namespace kprof::cli
