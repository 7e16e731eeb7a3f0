#include "cuda/device/device_facts.hpp"

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <map>
#include <mutex>

#include "cuda/cupti/cupti_check.hpp"
#include "cuda/device/cuda_check.hpp"
#include "kprof/version.hpp"

namespace kprof::detail {
namespace {

int attribute(cudaDeviceAttr attr, int ordinal, const char* what) {
  int value = 0;
  check_cuda(cudaDeviceGetAttribute(&value, attr, ordinal), what);
  return value;
}

}  // namespace

DeviceInfo read_device_info(int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
  info.name = prop.name;
  char bus_id[32] = {};
  check_cuda(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal), "cudaDeviceGetPCIBusId");
  info.pci_bus_id = bus_id;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  info.l2_bytes = prop.l2CacheSize;
  // cudaDeviceProp::clockRate and memoryClockRate are gone in CUDA 13: attributes, in kHz.
  info.compute_clock_khz =
      attribute(cudaDevAttrClockRate, ordinal, "cudaDeviceGetAttribute(cudaDevAttrClockRate)");
  info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal,
                                    "cudaDeviceGetAttribute(cudaDevAttrMemoryClockRate)");
  return info;
}

namespace {

// What a session's description reads of the device and the process, which does not change
// while the process runs. Read once per device: cudaGetDeviceProperties alone cost ~0.7 ms of
// every profile on the H200, a fifth of a one-kernel profile's fixed cost.
struct SessionFacts {
  DeviceInfo info;
  std::string host;
  std::string driver;
  std::string runtime;
  std::string cupti;
};

const SessionFacts& session_facts(int device) {
  static std::mutex mutex;
  static std::map<int, SessionFacts> facts;
  std::lock_guard lock(mutex);
  if (const auto it = facts.find(device); it != facts.end()) return it->second;
  SessionFacts f;
  f.info = read_device_info(device);
  int driver = 0, runtime = 0;
  check_cuda(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check_cuda(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  uint32_t cupti = 0;
  check_cupti(cuptiGetVersion(&cupti), "cuptiGetVersion");
  f.host = host_name();
  f.driver = cuda_version_string(driver);
  f.runtime = cuda_version_string(runtime);
  f.cupti = std::to_string(cupti);
  return facts.emplace(device, std::move(f)).first->second;
}

}  // namespace

SessionInfo describe_session(const std::string& backend, int passes) {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  const SessionFacts& facts = session_facts(device);
  const DeviceInfo& info = facts.info;

  SessionInfo s;
  s.gpu = info.name;
  s.device = device;
  s.host = facts.host;
  s.compute_clock_khz = info.compute_clock_khz;
  s.memory_clock_khz = info.memory_clock_khz;
  s.backend = backend;
  s.passes = passes;  // the options it ran with are the engine's to write (describe_options)
  s.kprof_version = version();
  s.cuda_driver_version = facts.driver;
  s.cuda_runtime_version = facts.runtime;
  s.cupti_version = facts.cupti;
  s.started_at = utc_now_iso8601();
  return s;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "unknown";
  return name;
}

std::string utc_now_iso8601() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32] = {};
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace kprof::detail
