// make_device_services: NVML for the profiled GPU (per-run clock, temperature, clock event
// reasons), for the GPU the thermal guard watches, and the clock setter of clock_control="base".
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/gpu_layer.hpp"
#include "core/paced_reading.hpp"
#include "core/run_conditions.hpp"
#include "cuda/clock_probe.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/nvml.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

std::string pci_bus_id(int ordinal) {
  char id[32] = {};
  check_cuda(cudaDeviceGetPCIBusId(id, sizeof id, ordinal), "cudaDeviceGetPCIBusId");
  return id;
}

std::string describe(int ordinal, const std::string& bus) {
  return "GPU " + std::to_string(ordinal) + " (" + bus + ")";
}

// The thermal headroom of the GPU at `bus`, paced for the whole process rather than per
// profile: NVML's headroom costs ~0.5 ms on the H200 VM, and the thermal guard reads it when
// each profile starts, so that an autotuner's profile of every candidate paid it every time.
// The pacing rule is the one within a profile (PacedReading).
std::optional<int> paced_margin(const std::string& bus, nvml::Device& device) {
  static std::mutex mutex;
  static std::map<std::string, PacedReading<std::optional<int>>> readings;
  std::lock_guard lock(mutex);
  auto it = readings.try_emplace(bus, steady_seconds).first;
  return it->second.get([&] { return device.margin_c(); });
}

class NvmlProbe final : public DeviceProbe {
 public:
  // `clock`: measures the clock where NVML cannot read it; may be null.
  explicit NvmlProbe(const std::string& bus, std::unique_ptr<ClockProbe> clock = nullptr)
      : bus_(bus), device_(bus), clock_(std::move(clock)) {}
  std::string unavailable() const override { return device_.error(); }
  std::optional<int> margin_c() override { return paced_margin(bus_, device_); }
  std::optional<int> temperature_c() override { return device_.temperature_c(); }
  DeviceReading read() override {
    DeviceReading r;
    if (const auto mhz = device_.sm_clock_mhz()) r.sm_clock_khz = 1000.0 * *mhz;
    r.temperature_c = device_.temperature_c();
    r.clock_event_reasons = device_.clock_event_reasons();
    return r;
  }
  // After the run, where NVML has no clock, the probe kernel measures it: queued behind the
  // run's work, it sees the clock the run left the GPU at. Not when NVML says the GPU already
  // idles: the clock is then ramping down (or up again for the probe) and says nothing about
  // the run, as NVML's own reading would not.
  DeviceReading read_after_run() override {
    DeviceReading r = read();
    if (!r.sm_clock_khz && !taken_idle(r) && clock_ != nullptr) {
      r.sm_clock_khz = clock_->measure_khz();
      r.clock_from_kernel = r.sm_clock_khz.has_value();
    }
    return r;
  }

 private:
  std::string bus_;
  nvml::Device device_;
  std::unique_ptr<ClockProbe> clock_;
};

// The probe kernel only where it costs little: with durations alone. Under the range
// profiler's kernel replay every kernel is a profiled range (tens of ms), and counters give
// the clock there anyway (gpc__cycles_elapsed.avg.per_second).
std::unique_ptr<ClockProbe> clock_probe_for(const Options& options) {
  if (!activity_records_measure(options)) return nullptr;
  try {
    return std::make_unique<ClockProbe>();
  } catch (const Error&) {
    return nullptr;
  }
}

class NvmlClockSetter final : public ClockSetter {
 public:
  NvmlClockSetter(int ordinal, const std::string& bus)
      : name_(describe(ordinal, bus)), device_(bus) {}
  const std::string& error() const { return device_.error(); }
  std::string device() const override { return name_; }

  void lock_base() override {
    const int r = device_.lock_clocks_to_base();
    if (r == nvml::kSuccess) return;
    const std::string what = "clock_control='base' could not lock the SM clock of " + name_ + ": " +
                             nvml::error_string(r);
    if (r == nvml::kErrorNoPermission)
      throw ClockPermissionError(
          what +
          ". Locking clocks needs root (or an administrator who allows it); run as root, or "
          "lock the clocks yourself with `sudo nvidia-smi -lgc base` and use "
          "clock_control='none'. Never lock the clocks of a machine you share with others");
    if (r == nvml::kErrorNotSupported)
      throw ClockControlError(what + ". This GPU or driver cannot lock clocks through NVML");
    throw ClockControlError(what);
  }

  std::string reset() noexcept override {
    try {
      const int r = device_.reset_locked_clocks();
      return r == nvml::kSuccess ? "" : nvml::error_string(r);
    } catch (...) {
      return "an exception while resetting";
    }
  }

 private:
  std::string name_;
  nvml::Device device_;
};

}  // namespace

DeviceServices make_device_services(const Options& options) {
  DeviceServices s;
  int current = 0;
  check_cuda(cudaGetDevice(&current), "cudaGetDevice");
  const std::string bus = pci_bus_id(current);
  auto probe = std::make_unique<NvmlProbe>(bus, clock_probe_for(options));
  if (probe->unavailable().empty())
    s.device = std::move(probe);
  else
    s.device_unavailable = probe->unavailable();

  if (options.thermal.device && *options.thermal.device != current) {
    int count = 0;
    check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (*options.thermal.device >= count)
      throw OptionError("thermal_device", std::to_string(*options.thermal.device),
                        "a CUDA device ordinal below " + std::to_string(count) +
                            " (CUDA_VISIBLE_DEVICES applies), or None for the profiled device");
    auto watched = std::make_unique<NvmlProbe>(pci_bus_id(*options.thermal.device));
    if (watched->unavailable().empty())
      s.thermal = std::move(watched);
    else
      s.thermal_unavailable = watched->unavailable();
  } else if (!s.device) {
    s.thermal_unavailable = s.device_unavailable;
  }

  if (options.clock_control == ClockControl::base) {
    auto setter = std::make_unique<NvmlClockSetter>(current, bus);
    if (setter->error().empty())
      s.clocks = std::move(setter);
    else
      s.clocks_unavailable = setter->error();
  }
  return s;
}

}  // namespace kprof::detail
