// What the engine reads from, and sets on, the GPU besides the kernels' measurements: the
// temperature the thermal guard watches, the per-run context (SM clock, temperature, clock
// event reasons) and the locked SM clock of clock_control="base". src/cuda implements these
// with NVML; tests implement them with scripts, so that the logic is tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kprof::detail {

// Temperatures of one GPU, in °C.
class TemperatureSource {
 public:
  virtual ~TemperatureSource() = default;
  // Headroom before the GPU slows down to protect itself (nvidia-smi's T.Limit); nullopt when
  // the GPU does not report it.
  virtual std::optional<int> margin_c() = 0;
  // The GPU's temperature, for messages; nullopt when unknown.
  virtual std::optional<int> temperature_c() = 0;
};

// NVML clock event reasons (nvmlClocksEventReason*), bit by bit.
inline constexpr std::uint64_t kReasonGpuIdle = 0x1;
inline constexpr std::uint64_t kReasonApplicationsClocks = 0x2;
inline constexpr std::uint64_t kReasonSwPowerCap = 0x4;
inline constexpr std::uint64_t kReasonHwSlowdown = 0x8;
inline constexpr std::uint64_t kReasonSyncBoost = 0x10;
inline constexpr std::uint64_t kReasonSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kReasonHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kReasonHwPowerBrake = 0x80;
inline constexpr std::uint64_t kReasonDisplayClocks = 0x100;

// One reading of the profiled GPU's state; each part is nullopt when it could not be read.
struct DeviceReading {
  std::optional<double> sm_clock_khz;
  std::optional<int> temperature_c;
  std::optional<std::uint64_t> clock_event_reasons;
  bool clock_from_kernel = false;  // sm_clock_khz measured by a probe kernel, not read from NVML
};

// Whether NVML flagged the GPU idle when `r` was taken (its clock then says nothing of a run).
inline bool taken_idle(const DeviceReading& r) {
  return r.clock_event_reasons && (*r.clock_event_reasons & kReasonGpuIdle);
}

class DeviceProbe : public TemperatureSource {
 public:
  // Why nothing can be read ("libnvidia-ml.so.1 could not be loaded: ..."); empty when the
  // probe works.
  virtual std::string unavailable() const = 0;
  virtual DeviceReading read() = 0;
  // The reading after a run. A probe may measure more there than before it (the clock the
  // run's kernels left the GPU at); by default the same as read().
  virtual DeviceReading read_after_run() { return read(); }
};

// Locks and unlocks the SM clock of one GPU. Never called by tests on a real GPU: tests
// inject their own setter.
class ClockSetter {
 public:
  virtual ~ClockSetter() = default;
  // "GPU 0 (00000000:19:00.0)", for messages.
  virtual std::string device() const = 0;
  // Locks the SM clock to the GPU's base clock. Throws ClockPermissionError when the process
  // may not, ClockControlError for any other failure.
  virtual void lock_base() = 0;
  // Gives the clocks back to the driver. Returns "" on success, else what went wrong. Called
  // from destructors, atexit and signal handlers: must not throw.
  virtual std::string reset() noexcept = 0;
};

}  // namespace kprof::detail
