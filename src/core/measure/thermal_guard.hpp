// The thermal guard: before every run, pauses while the GPU is too hot, so that runs do not
// measure a GPU that slows itself down to cool. nsight-python's thermovision algorithm, with
// its constants, over a TemperatureSource, a clock and a sleep function (docs/conditions.md).
#pragma once

#include <functional>
#include <string>

#include "core/measure/device_probe.hpp"
#include "core/option_checks.hpp"

namespace kprof::detail {

class ThermalGuard {
 public:
  // nsight-python's thermovision constants.
  static constexpr int kMinCont = 12;           // auto mode never resumes below this headroom
  static constexpr int kMaxCont = 50;           // nor waits for more than this
  static constexpr int kTargetMinRuns = 5;      // fewer runs between pauses: cool more
  static constexpr int kTargetMaxRuns = 50;     // more runs between pauses: cool less
  static constexpr int kStep = 3;               // °C per adaptation
  static constexpr double kPollInterval = 0.5;  // seconds between readings while paused

  using Now = std::function<double()>;        // seconds, monotonic
  using Sleep = std::function<void(double)>;  // sleeps that many seconds
  using Log = std::function<void(const std::string&)>;

  // `settings.mode` must not be off. `log` receives one line per pause (debug output).
  ThermalGuard(const ThermalSettings& settings, TemperatureSource& source, Now now, Sleep sleep,
               Log log = {});

  // Whether the GPU reports its headroom; without it the guard cannot work.
  bool supported();

  // Called before every run. When the headroom is at or below thermal_wait, pauses until it
  // is back at thermal_cont; returns the seconds paused. In auto mode thermal_cont adapts:
  // +3 °C (up to 50) when fewer than 5 runs fitted between two pauses, -3 °C (down to 12) when
  // more than 50 did, and -3 °C whenever thermal_timeout passes while waiting. Throws
  // CoolingTimeoutError when the wait times out (manual mode), or when auto mode reached
  // 12 °C and the headroom is still below it.
  double before_run();

  int thermal_cont() const noexcept { return cont_; }
  int pauses() const noexcept { return pauses_; }
  double paused_s() const noexcept { return paused_s_; }

 private:
  void pause(int headroom);
  void wait_for_cooling(int headroom);
  void on_timeout(int headroom);

  ThermalSettings settings_;
  TemperatureSource& source_;
  Now now_;
  Sleep sleep_;
  Log log_;
  int cont_;
  bool counting_ = false;
  int runs_since_cont_ = 0;
  int pauses_ = 0;
  double paused_s_ = 0;
};

}  // namespace kprof::detail
