// The conditions each run is measured in (docs/conditions.md): the thermal guard before it, a
// reading of the GPU after it (clock, temperature, clock event reasons; paced), and the
// RunInfo the results report for it.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/measure/device_probe.hpp"
#include "core/measure/paced_reading.hpp"
#include "core/measure/thermal_guard.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

class InstructionCounter;  // core/measure/flop_pass.hpp
class WarpSampler;         // core/measure/sampling_pass.hpp
struct RegionSpan;         // core/measure/sampling_pass.hpp

// What the engine uses of the GPU besides the backend; any may be null. src/api builds these
// on NVML; tests give scripted ones.
struct SweepServices {
  DeviceProbe* device = nullptr;         // the profiled GPU: per-run clock, temperature...
  TemperatureSource* thermal = nullptr;  // what the thermal guard watches
  ClockSetter* clocks = nullptr;         // clock_control="base"
  std::string device_unavailable;        // why `device` is null ("" when it is not)
  std::string thermal_unavailable;       // why `thermal` is null
  std::string clocks_unavailable;        // why `clocks` is null
  std::function<double()> now_s;         // monotonic seconds; default steady_clock
  std::function<void(double)> sleep_s;   // default std::this_thread::sleep_for
  // Waits for the work queued on the GPU, so that a timed call's wall time holds its kernels,
  // not only their launches (the overhead disclosure); null: nothing to wait for.
  std::function<void()> wait_for_gpu;
  // After a failed sweep: the fault that cost the process its CUDA context, "" when it has
  // none (gpu_fault(); empty: never).
  std::function<std::string()> gpu_fault;
  // set:flop's instruction counter (core/measure/flop_pass.hpp) for the profile's pass, made when
  // the metrics ask for its classes; empty: nothing counts them here.
  std::function<std::unique_ptr<InstructionCounter>()> instruction_counter;
  // set:source's warp sampler (core/measure/sampling_pass.hpp) for the profile's pass, its period
  // chosen for regions of the given span; empty: nothing samples here.
  std::function<std::unique_ptr<WarpSampler>(const RegionSpan&)> warp_sampler;
};

// Monotonic seconds (steady_clock): the engine's clock unless a test gives its own.
double steady_seconds();

class RunConditions {
 public:
  using Now = std::function<double()>;
  // `poll` is called between the sleeps of a thermal pause; it throws to stop the sweep.
  RunConditions(const Options& options, const SweepServices& services, const SessionInfo& session,
                Now now, std::function<void()> poll);

  // Before a run: the thermal guard's pause, in seconds (0 without a guard).
  double before_run();
  // Reads the GPU as a run's call returns (its clock while its kernels may still run).
  // after_run reads then when this was not called.
  void read_device();
  // After a run of `seconds`, which the guard paused `pause` seconds before.
  void after_run(std::size_t config, int run, double seconds, double pause);
  // The clock the kernels ran at, counted by the GPU (kHz per config and run), replaces NVML's
  // readings around those runs.
  void apply_counter_clocks(const std::map<std::pair<std::size_t, int>, double>& clocks);

  // Where the runs' SM clock came from (SessionInfo::clock_source).
  std::string clock_source() const;
  const ThermalGuard* thermal() const { return thermal_ ? &*thermal_ : nullptr; }
  std::vector<RunInfo> take_runs() { return std::move(runs_); }

 private:
  void unavailable_device(const std::string& why) const;
  void make_thermal_guard(const SweepServices& services, std::function<void()> poll);

  const Options& options_;
  const SessionInfo& session_;
  Now now_;
  std::function<void(double)> sleep_;
  DeviceProbe* device_ = nullptr;
  PacedReading<DeviceReading> device_reading_;
  std::optional<DeviceReading> pending_reading_;  // read_device's, for the next after_run
  std::optional<PacedTemperature> thermal_source_;
  std::optional<ThermalGuard> thermal_;
  std::vector<RunInfo> runs_;
  bool counter_clocks_ = false;  // a clock came from the counters
  bool kernel_clocks_ = false;   // a clock reading came from the probe kernel
};

}  // namespace kprof::detail
