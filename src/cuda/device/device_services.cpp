// make_device_services: NVML for the profiled GPU (per-run clock, temperature, clock event
// reasons), for the GPU the thermal guard watches, and the clock setter of clock_control="base".
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "core/measure/gpu_layer.hpp"
#include "core/measure/paced_reading.hpp"
#include "core/measure/run_conditions.hpp"
#include "cuda/device/clock_probe.hpp"
#include "cuda/device/cuda_check.hpp"
#include "cuda/device/nvml.hpp"
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

// NVML's handle of the GPU at `bus`, looked up once per process rather than by every profile.
std::shared_ptr<nvml::Device> nvml_device(const std::string& bus) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<nvml::Device>> devices;
  std::lock_guard lock(mutex);
  std::shared_ptr<nvml::Device>& device = devices[bus];
  if (device == nullptr) device = std::make_shared<nvml::Device>(bus);
  return device;
}

// A reading of the GPU at `bus`, paced for the whole process rather than per profile, by the
// rule within a profile (PacedReading): NVML costs ~0.1-0.5 ms a reading on the H200 VM, and an
// autotuner's profile of each candidate paid it for what the profile a moment before had read.
template <class T, class Read>
T paced_for_process(const std::string& bus, Read&& read,
                    double max_age = PacedReading<T>::kMaxAge) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, double>, PacedReading<T>> readings;  // by bus and age
  std::lock_guard lock(mutex);
  auto it = readings.try_emplace({bus, max_age}, steady_seconds, max_age).first;
  return it->second.get(std::forward<Read>(read));
}

class NvmlProbe final : public DeviceProbe {
 public:
  // `probe_clock`: the probe kernel measures the clock where NVML cannot read it. `conditions`
  // tells profiles apart whose run readings may not be shared (clocks locked or not).
  NvmlProbe(const std::string& bus, bool probe_clock, const std::string& conditions = "")
      : bus_(bus),
        device_(nvml_device(bus)),
        probe_clock_(probe_clock),
        readings_key_(bus + (probe_clock ? "|probe" : "") + "|" + conditions) {}
  std::string unavailable() const override { return device_->error(); }
  std::optional<int> margin_c() override {
    return paced_for_process<std::optional<int>>(
        bus_, [this] { return device_->margin_c(); },
        PacedReading<std::optional<int>>::kMarginMaxAge);
  }
  std::optional<int> temperature_c() override { return device_->temperature_c(); }
  DeviceReading read() override {
    DeviceReading r;
    if (const auto mhz = device_->sm_clock_mhz()) r.sm_clock_khz = 1000.0 * *mhz;
    r.temperature_c = device_->temperature_c();
    r.clock_event_reasons = device_->clock_event_reasons();
    return r;
  }
  DeviceReading read_after_run() override {
    // Shared only by profiles that read the same way under the same clocks: a reading taken
    // before clock_control='base' locked the clock says nothing about the runs after.
    return paced_for_process<DeviceReading>(readings_key_, [this] { return read_run(); });
  }

 private:
  // After the run, where NVML has no clock, the probe kernel measures it: queued behind the
  // run's work, it sees the clock the run left the GPU at. Not when NVML says the GPU already
  // idles: the clock is then ramping down (or up again for the probe) and says nothing about
  // the run, as NVML's own reading would not.
  DeviceReading read_run() {
    DeviceReading r = read();
    if (!r.sm_clock_khz && !taken_idle(r) && probe_clock_) {
      r.sm_clock_khz = probe_sm_clock_khz();
      r.clock_from_kernel = r.sm_clock_khz.has_value();
    }
    return r;
  }

  std::string bus_;
  std::shared_ptr<nvml::Device> device_;
  bool probe_clock_;
  std::string readings_key_;
};

// The probe kernel only where it costs little: with durations alone. Under the range
// profiler's kernel replay every kernel is a profiled range (tens of ms), and counters give
// the clock there anyway (gpc__cycles_elapsed.avg.per_second).
bool probes_clock(const Options& options) { return activity_records_measure(options); }

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
  auto probe = std::make_unique<NvmlProbe>(bus, probes_clock(options),
                                           "clocks " + to_string(options.clock_control));
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
    auto watched = std::make_unique<NvmlProbe>(pci_bus_id(*options.thermal.device), false);
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
