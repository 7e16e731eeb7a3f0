#include "cuda/cupti/counter_permission.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace kprof::detail {
namespace {

constexpr const char* kParamsFile = "/proc/driver/nvidia/params";

}  // namespace

std::string counter_permission() {
  try {
    if (geteuid() == 0) return "yes (root)";
    std::ifstream params(kParamsFile);
    if (!params) {
      return std::string("unknown (") + kParamsFile + " is not readable: no NVIDIA driver?)";
    }
    const std::string key = "RmProfilingAdminOnly:";
    for (std::string line; std::getline(params, line);) {
      if (line.rfind(key, 0) != 0) continue;
      std::string value = line.substr(key.size());
      value.erase(0, value.find_first_not_of(" \t"));
      if (value.rfind('0', 0) == 0) return "yes (profiling open to all users)";
      if (value.rfind('1', 0) == 0) {
        return "no: restricted to admin users (run as root, add --cap-add SYS_ADMIN in a "
               "container, or set NVreg_RestrictProfilingToAdminUsers=0)";
      }
      return "unknown (RmProfilingAdminOnly = '" + value + "' in " + kParamsFile + ")";
    }
    return std::string("unknown (no RmProfilingAdminOnly in ") + kParamsFile + ")";
  } catch (...) {
    return "unknown (could not read the driver's parameters)";
  }
}

}  // namespace kprof::detail
