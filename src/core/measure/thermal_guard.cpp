#include "core/measure/thermal_guard.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

std::string degrees(std::optional<int> t) { return t ? std::to_string(*t) + " C" : "? C"; }

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

}  // namespace

ThermalGuard::ThermalGuard(const ThermalSettings& settings, TemperatureSource& source, Now now,
                           Sleep sleep, Log log)
    : settings_(settings),
      source_(source),
      now_(std::move(now)),
      sleep_(std::move(sleep)),
      log_(std::move(log)),
      cont_(settings.cont) {}

bool ThermalGuard::supported() { return source_.margin_c().has_value(); }

double ThermalGuard::before_run() {
  const std::optional<int> headroom = source_.margin_c();
  if (!headroom) return 0;  // a reading failed: run rather than guess
  // The run about to start counts towards the runs between two pauses.
  if (counting_) ++runs_since_cont_;
  if (*headroom <= settings_.wait) {
    const double start = now_();
    pause(*headroom);
    const double waited = now_() - start;
    ++pauses_;
    paused_s_ += waited;
    return waited;
  }
  if (*headroom >= cont_) counting_ = true;
  return 0;
}

void ThermalGuard::pause(int headroom) {
  if (log_)
    log_("thermal guard: GPU at " + degrees(source_.temperature_c()) + ", headroom " +
         std::to_string(headroom) + " C <= thermal_wait=" + std::to_string(settings_.wait) +
         " C; pausing until the headroom is back at " + std::to_string(cont_) + " C");
  // Adapt to how fast the GPU heats: few runs since the last pause -> cool further next time.
  if (settings_.mode == ThermalMode::automatic && counting_ && runs_since_cont_ > 0) {
    if (runs_since_cont_ < kTargetMinRuns)
      cont_ = std::min(cont_ + kStep, kMaxCont);
    else if (runs_since_cont_ > kTargetMaxRuns)
      cont_ = std::max(cont_ - kStep, kMinCont);
  }
  runs_since_cont_ = 0;
  counting_ = false;
  wait_for_cooling(headroom);
  counting_ = true;
}

void ThermalGuard::wait_for_cooling(int headroom) {
  double start = now_();
  const double began = start;
  std::optional<int> h = headroom;
  while (h && *h < cont_) {
    if (now_() - start > settings_.timeout_s) {
      on_timeout(*h);
      start = now_();  // auto mode lowered thermal_cont: a fresh timeout for the new target
    }
    sleep_(kPollInterval);
    h = source_.margin_c();
  }
  if (log_)
    log_("thermal guard: waited " + seconds(now_() - began) + ", GPU at " +
         degrees(source_.temperature_c()) + ", headroom " + (h ? std::to_string(*h) : "?") + " C");
}

void ThermalGuard::on_timeout(int headroom) {
  if (settings_.mode != ThermalMode::automatic)
    throw CoolingTimeoutError(
        "the GPU did not cool down within thermal_timeout=" + std::to_string(settings_.timeout_s) +
        " s: its thermal headroom is " + std::to_string(headroom) +
        " C, short of thermal_cont=" + std::to_string(cont_) +
        " C. Raise thermal_wait, lower thermal_cont, raise thermal_timeout, or use "
        "thermal_mode='auto'");
  cont_ = std::max(cont_ - kStep, kMinCont);
  if (log_)
    log_("thermal guard: no cooling within " + std::to_string(settings_.timeout_s) +
         " s; thermal_cont lowered to " + std::to_string(cont_) + " C");
  if (cont_ == kMinCont && cont_ > headroom)
    throw CoolingTimeoutError(
        "the GPU did not cool down: thermal_mode='auto' lowered thermal_cont to its minimum, " +
        std::to_string(kMinCont) + " C, but the thermal headroom is only " +
        std::to_string(headroom) + " C after waiting " + std::to_string(settings_.timeout_s) +
        " s. Something else may be heating the GPU; check nvidia-smi");
}

}  // namespace kprof::detail
