#include "cuda/device/nvml.hpp"

#include <dlfcn.h>

namespace kprof::detail::nvml {
namespace {

// NVML's types, as nvml.h declares them.
using Return = int;                  // nvmlReturn_t
using DeviceT = struct NvmlDevice*;  // nvmlDevice_t
struct MarginTemperature {           // nvmlMarginTemperature_v1_t
  unsigned int version;
  int margin;
};
// NVML_STRUCT_VERSION(MarginTemperature, 1): sizeof | (1 << 24).
constexpr unsigned int kMarginTemperatureV1 = sizeof(MarginTemperature) | (1u << 24);
struct TemperatureV1 {  // nvmlTemperature_v1_t, for drivers that drop the older call
  unsigned int version;
  int sensor;
  int temperature;
};
constexpr unsigned int kTemperatureV1 = sizeof(TemperatureV1) | (1u << 24);
constexpr int kTemperatureGpu = 0;               // NVML_TEMPERATURE_GPU
constexpr int kThresholdSlowdown = 1;            // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
constexpr int kClockSm = 1;                      // NVML_CLOCK_SM
constexpr unsigned int kLimitTdp = 0xffffff01u;  // NVML_CLOCK_LIMIT_ID_TDP

struct Api {
  Return (*init)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*by_pci_bus_id)(const char*, DeviceT*) = nullptr;
  Return (*temperature)(DeviceT, int, unsigned int*) = nullptr;
  Return (*temperature_v)(DeviceT, TemperatureV1*) = nullptr;
  Return (*temperature_threshold)(DeviceT, int, unsigned int*) = nullptr;
  Return (*margin_temperature)(DeviceT, MarginTemperature*) = nullptr;
  Return (*clock_info)(DeviceT, int, unsigned int*) = nullptr;
  Return (*clock_event_reasons)(DeviceT, unsigned long long*) = nullptr;
  Return (*set_locked_clocks)(DeviceT, unsigned int, unsigned int) = nullptr;
  Return (*reset_locked_clocks)(DeviceT) = nullptr;
  std::string error;  // "" when usable
};

template <class F>
void resolve(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
}

Api load() {
  Api api;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    api.error = std::string("libnvidia-ml.so.1 could not be loaded") +
                (why != nullptr ? std::string(": ") + why : std::string());
    return api;
  }
  resolve(lib, api.init, "nvmlInit_v2");
  resolve(lib, api.error_string, "nvmlErrorString");
  resolve(lib, api.by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  resolve(lib, api.temperature, "nvmlDeviceGetTemperature");
  resolve(lib, api.temperature_v, "nvmlDeviceGetTemperatureV");
  resolve(lib, api.temperature_threshold, "nvmlDeviceGetTemperatureThreshold");
  resolve(lib, api.margin_temperature, "nvmlDeviceGetMarginTemperature");
  resolve(lib, api.clock_info, "nvmlDeviceGetClockInfo");
  resolve(lib, api.clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (api.clock_event_reasons == nullptr)  // drivers before R535
    resolve(lib, api.clock_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  resolve(lib, api.set_locked_clocks, "nvmlDeviceSetGpuLockedClocks");
  resolve(lib, api.reset_locked_clocks, "nvmlDeviceResetGpuLockedClocks");
  if (api.init == nullptr || api.by_pci_bus_id == nullptr) {
    api.error = "libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2";
    return api;
  }
  if (const Return r = api.init(); r != kSuccess)
    api.error = "nvmlInit_v2 failed: " +
                (api.error_string ? std::string(api.error_string(r)) : std::to_string(r));
  return api;
}

const Api& api() {
  static const Api instance = load();
  return instance;
}

std::optional<unsigned int> unsigned_value(Return r, unsigned int v) {
  return r == kSuccess ? std::optional(v) : std::nullopt;
}

}  // namespace

const std::string& load_error() { return api().error; }

std::string error_string(int result) {
  if (api().error_string == nullptr) return "NVML error " + std::to_string(result);
  return api().error_string(result);
}

Device::Device(const std::string& pci_bus_id) : pci_bus_id_(pci_bus_id) {
  if (!load_error().empty()) {
    error_ = load_error();
    return;
  }
  DeviceT device = nullptr;
  const Return r = api().by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (r != kSuccess) {
    error_ = "NVML has no GPU at PCI bus id " + pci_bus_id + ": " + error_string(r);
    return;
  }
  handle_ = device;
}

std::optional<int> Device::temperature_c() const {
  if (handle_ == nullptr) return std::nullopt;
  if (api().temperature != nullptr) {
    unsigned int t = 0;
    if (api().temperature(static_cast<DeviceT>(handle_), kTemperatureGpu, &t) == kSuccess)
      return static_cast<int>(t);
  }
  if (api().temperature_v != nullptr) {
    TemperatureV1 t{kTemperatureV1, kTemperatureGpu, 0};
    if (api().temperature_v(static_cast<DeviceT>(handle_), &t) == kSuccess) return t.temperature;
  }
  return std::nullopt;
}

std::optional<int> Device::slowdown_threshold_c() const {
  if (handle_ == nullptr || api().temperature_threshold == nullptr) return std::nullopt;
  unsigned int t = 0;
  const auto v = unsigned_value(
      api().temperature_threshold(static_cast<DeviceT>(handle_), kThresholdSlowdown, &t), t);
  return v ? std::optional(static_cast<int>(*v)) : std::nullopt;
}

std::optional<int> Device::margin_c() const {
  if (handle_ == nullptr) return std::nullopt;
  if (api().margin_temperature != nullptr) {
    MarginTemperature m{kMarginTemperatureV1, 0};
    if (api().margin_temperature(static_cast<DeviceT>(handle_), &m) == kSuccess) return m.margin;
  }
  const auto slowdown = slowdown_threshold_c();
  const auto t = temperature_c();
  if (slowdown && t) return *slowdown - *t;
  return std::nullopt;
}

std::optional<unsigned> Device::sm_clock_mhz() const {
  if (handle_ == nullptr || api().clock_info == nullptr) return std::nullopt;
  unsigned int mhz = 0;
  const auto v =
      unsigned_value(api().clock_info(static_cast<DeviceT>(handle_), kClockSm, &mhz), mhz);
  // A running GPU has no SM clock of 0: on the H200 VM, NVML answered 0 with success (2026-11-30,
  // docs/validation.md). That is no reading, not a throttled GPU.
  return v && *v > 0 ? v : std::nullopt;
}

std::optional<std::uint64_t> Device::clock_event_reasons() const {
  if (handle_ == nullptr || api().clock_event_reasons == nullptr) return std::nullopt;
  unsigned long long reasons = 0;
  if (api().clock_event_reasons(static_cast<DeviceT>(handle_), &reasons) != kSuccess)
    return std::nullopt;
  return static_cast<std::uint64_t>(reasons);
}

int Device::lock_clocks_to_base() const {
  if (handle_ == nullptr || api().set_locked_clocks == nullptr) return kErrorNotSupported;
  return api().set_locked_clocks(static_cast<DeviceT>(handle_), kLimitTdp, kLimitTdp);
}

int Device::reset_locked_clocks() const {
  if (handle_ == nullptr || api().reset_locked_clocks == nullptr) return kErrorNotSupported;
  return api().reset_locked_clocks(static_cast<DeviceT>(handle_));
}

}  // namespace kprof::detail::nvml
