// NVML, the driver's management library, reached through dlopen("libnvidia-ml.so.1").
//
// kprof links no NVML and needs no nvml.h (the build machine has neither a driver nor the
// header): the few functions and constants it uses are declared here by hand, from NVML's
// documented ABI. The library is loaded and initialised once per process, on first use, and
// never unloaded. Devices are found by PCI bus id, which CUDA and NVML agree on whatever
// CUDA_VISIBLE_DEVICES says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kprof::detail::nvml {

// nvmlReturn_t values kprof tells apart.
inline constexpr int kSuccess = 0;
inline constexpr int kErrorNotSupported = 3;
inline constexpr int kErrorNoPermission = 4;
inline constexpr int kErrorNotFound = 6;

// Whether NVML could be loaded and initialised; "" when it could, else why not.
const std::string& load_error();

// nvmlErrorString(result), or the number when NVML is not loaded.
std::string error_string(int result);

// One GPU as NVML knows it.
class Device {
 public:
  // The GPU at `pci_bus_id` ("0000:19:00.0", as cudaDeviceGetPCIBusId writes it). Check
  // error(): "" when NVML has it.
  explicit Device(const std::string& pci_bus_id);

  const std::string& error() const noexcept { return error_; }
  const std::string& pci_bus_id() const noexcept { return pci_bus_id_; }

  std::optional<int> temperature_c() const;
  // Temperature at which the GPU starts to slow down (NVML_TEMPERATURE_THRESHOLD_SLOWDOWN).
  std::optional<int> slowdown_threshold_c() const;
  // Headroom to the GPU's thermal limit (nvidia-smi's T.Limit, nvmlDeviceGetMarginTemperature;
  // drivers without it: slowdown threshold minus temperature).
  std::optional<int> margin_c() const;
  std::optional<unsigned> sm_clock_mhz() const;
  // nvmlClocksEventReason* bits (nvmlDeviceGetCurrentClocksEventReasons, or the older
  // nvmlDeviceGetCurrentClocksThrottleReasons).
  std::optional<std::uint64_t> clock_event_reasons() const;

  // nvmlDeviceSetGpuLockedClocks(NVML_CLOCK_LIMIT_ID_TDP, NVML_CLOCK_LIMIT_ID_TDP): the SM
  // clock locked to base, as NVBench's --lock-gpu-clocks=base. Returns the nvmlReturn_t.
  // Changes the GPU for every process on it: only for clock_control="base".
  int lock_clocks_to_base() const;
  // nvmlDeviceResetGpuLockedClocks. Returns the nvmlReturn_t.
  int reset_locked_clocks() const;

 private:
  void* handle_ = nullptr;  // nvmlDevice_t
  std::string pci_bus_id_;
  std::string error_;
};

}  // namespace kprof::detail::nvml
