// PacedReading: reads of the GPU's state (clock, temperature, thermal headroom) paced so that
// they cost little of a profile's time.
//
// An NVML call costs ~140 us on the virtualised H200 kprof is validated on (four per run took
// 0.57 ms, more than many runs: docs/validation.md, 2026-11-30), a few us on bare metal.
// Clocks and temperatures change over tens of ms, so a reading younger than 400 times its own
// cost (a quarter of a percent, where the 50 ms cap does not bind), and never older than 50 ms,
// is handed out again instead of being read anew; the thermal headroom, whose NVML reading is
// the slowest, for up to 0.5 s.
// Where reading is cheap this is every run. (At 100 times and 50 ms, the headroom's reading
// alone took 1.5% of a sweep of 1,000 small regions on the H200: docs/validation.md.)
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "core/measure/device_probe.hpp"

namespace kprof::detail {

template <class T>
class PacedReading {
 public:
  using Now = std::function<double()>;  // monotonic seconds
  static constexpr double kCostRatio = 400;
  static constexpr double kMaxAge = 0.05;  // seconds
  // The thermal headroom moves by about a degree a second under load.
  static constexpr double kMarginMaxAge = 0.5;

  explicit PacedReading(Now now, double max_age = kMaxAge)
      : now_(std::move(now)), max_age_(max_age) {}

  // The last reading while it is young enough, else a new one from `read`.
  template <class Read>
  T get(Read&& read) {
    const double t = now_();
    if (!value_ || t - taken_ >= std::min(kCostRatio * cost_, max_age_)) {
      value_ = read();
      taken_ = t;
      cost_ = now_() - t;
    }
    return *value_;
  }

 private:
  Now now_;
  double max_age_;
  std::optional<T> value_;
  double taken_ = 0;
  double cost_ = 0;
};

// The thermal headroom of `source`, paced; the temperature (only said in messages) is not.
class PacedTemperature final : public TemperatureSource {
 public:
  PacedTemperature(TemperatureSource& source, PacedReading<std::optional<int>>::Now now)
      : source_(source), margin_(std::move(now), PacedReading<std::optional<int>>::kMarginMaxAge) {}
  std::optional<int> margin_c() override {
    return margin_.get([this] { return source_.margin_c(); });
  }
  std::optional<int> temperature_c() override { return source_.temperature_c(); }

 private:
  TemperatureSource& source_;
  PacedReading<std::optional<int>> margin_;
};

}  // namespace kprof::detail
