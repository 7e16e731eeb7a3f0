#include "core/measure/run_conditions.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <utility>

#include "core/option_checks.hpp"
#include "core/say.hpp"
#include "kprof/log.hpp"

namespace kprof::detail {
namespace {

// NVBench's throttle detection: a run whose SM clock fell below `threshold` of the rated one.
void set_throttled(RunInfo& info, const SessionInfo& session, double threshold) {
  if (!std::isnan(info.sm_clock_khz) && session.compute_clock_khz > 0 && threshold > 0)
    info.throttled = info.sm_clock_khz < threshold * static_cast<double>(session.compute_clock_khz);
}

// One run's RunInfo from the readings taken after it. The SM clock is the mean of the readings
// of a busy GPU: an idle GPU parks its clock low (NVML's GpuIdle reason), and a reading of 0
// (seen on the H200 VM) is no reading at all.
RunInfo run_info(std::size_t config, int run, double seconds, double pause,
                 const std::vector<DeviceReading>& readings, const SessionInfo& session,
                 double threshold) {
  RunInfo info;
  info.config = config;
  info.run = run;
  info.seconds = seconds;
  info.pause_s = pause;
  std::vector<double> busy;
  for (const DeviceReading& r : readings) {
    if (r.sm_clock_khz && *r.sm_clock_khz > 0 && !taken_idle(r)) busy.push_back(*r.sm_clock_khz);
    if (r.temperature_c && !(info.temperature_c >= *r.temperature_c))
      info.temperature_c = *r.temperature_c;
    if (r.clock_event_reasons)
      info.clock_event_reasons = std::max<std::int64_t>(info.clock_event_reasons, 0) |
                                 static_cast<std::int64_t>(*r.clock_event_reasons);
  }
  if (!busy.empty()) {
    double sum = 0;
    for (double c : busy) sum += c;
    info.sm_clock_khz = sum / static_cast<double>(busy.size());
  }
  set_throttled(info, session, threshold);
  return info;
}

void real_sleep(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

RunConditions::RunConditions(const Options& options, const SweepServices& services,
                             const SessionInfo& session, Now now, std::function<void()> poll)
    : options_(options),
      session_(session),
      now_(std::move(now)),
      sleep_(services.sleep_s ? services.sleep_s : real_sleep),
      device_reading_(now_) {
  device_ = services.device;
  if (device_ != nullptr && !device_->unavailable().empty()) {
    unavailable_device(device_->unavailable());
    device_ = nullptr;
  } else if (device_ == nullptr) {
    unavailable_device(services.device_unavailable);
  }
  make_thermal_guard(services, std::move(poll));
}

void RunConditions::unavailable_device(const std::string& why) const {
  if (!says(options_, Verbosity::info)) return;
  log_once("device:" + why, "[kprof] NVML cannot read the GPU (" +
                                (why.empty() ? std::string("no NVML") : why) +
                                "): MeasuredClock, Temperature and ThrottledRuns are NaN");
}

void RunConditions::make_thermal_guard(const SweepServices& services, std::function<void()> poll) {
  if (options_.thermal_mode == ThermalMode::off) return;
  const auto off = [&](const std::string& why) {
    if (says(options_, Verbosity::info))
      log_once("thermal:" + why, "[kprof] thermal guard off: " + why);
  };
  if (services.thermal == nullptr) {
    off(services.thermal_unavailable.empty() ? "no temperature source"
                                             : services.thermal_unavailable);
    return;
  }
  ThermalGuard::Log debug;
  if (says(options_, Verbosity::debug))
    debug = [](const std::string& line) { log_line("[kprof] " + line); };
  thermal_source_.emplace(*services.thermal, now_);
  thermal_.emplace(
      thermal_settings(options_), *thermal_source_, now_,
      [this, poll = std::move(poll)](double s) {
        sleep_(s);
        if (poll) poll();
      },
      debug);
  if (!thermal_->supported()) {
    off("the GPU does not report its thermal headroom (T.Limit)");
    thermal_.reset();
  }
}

double RunConditions::before_run() { return thermal_ ? thermal_->before_run() : 0; }

// The reading is taken just after the run's call (before it, the GPU idles and its clock says
// nothing about the run; after a wait for the GPU, the same), paced: a run shortly after another
// shares its reading.
void RunConditions::read_device() {
  if (device_ != nullptr)
    pending_reading_ = device_reading_.get([this] { return device_->read_after_run(); });
}

void RunConditions::after_run(std::size_t config, int run, double seconds, double pause) {
  if (!pending_reading_) read_device();
  std::vector<DeviceReading> readings;
  if (pending_reading_) readings.push_back(*std::exchange(pending_reading_, std::nullopt));
  for (const DeviceReading& reading : readings)
    kernel_clocks_ = kernel_clocks_ || (reading.clock_from_kernel && reading.sm_clock_khz);
  runs_.push_back(
      run_info(config, run, seconds, pause, readings, session_, options_.throttle_threshold));
}

void RunConditions::apply_counter_clocks(
    const std::map<std::pair<std::size_t, int>, double>& clocks) {
  if (clocks.empty()) return;
  for (RunInfo& run : runs_) {
    const auto it = clocks.find({run.config, run.run});
    if (it == clocks.end()) continue;
    run.sm_clock_khz = it->second;
    run.throttled.reset();
    set_throttled(run, session_, options_.throttle_threshold);
    counter_clocks_ = true;
  }
}

std::string RunConditions::clock_source() const {
  if (counter_clocks_) return "counters";
  if (kernel_clocks_) return "probe kernel";
  const bool nvml = std::any_of(runs_.begin(), runs_.end(),
                                [](const RunInfo& r) { return !std::isnan(r.sm_clock_khz); });
  return nvml ? "nvml" : "";
}

}  // namespace kprof::detail
