// What the tests of measurement conditions share: a scripted NVML probe, a GPU with a rated
// clock, sweeps of one kernel, log capture and lookups into results.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/measure/engine.hpp"
#include "kprof/annotate.hpp"
#include "kprof/log.hpp"
#include "scripted_backend.hpp"

namespace kprof::testing::conditions {

using kprof::testing::ScriptedBackend;

inline const double kNan = std::numeric_limits<double>::quiet_NaN();

inline Options quiet(int runs) {
  Options o;
  o.runs = runs;
  o.verbosity = Verbosity::silent;
  o.thermal_mode = ThermalMode::off;
  return o;
}

inline const Row& row(const Results& r, const std::string& annotation, std::size_t config) {
  for (const auto& x : r.rows())
    if (x.annotation == annotation && x.config == config) return x;
  throw std::runtime_error("no row " + annotation);
}

inline const InfoStat& info(const Row& r, const std::string& name) {
  for (const auto& s : r.info)
    if (s.name == name) return s;
  throw std::runtime_error("no info column " + name);
}

// A GPU with a rated SM clock of 1980 MHz.
class RatedBackend : public ScriptedBackend {
 public:
  SessionInfo describe() override {
    SessionInfo s = ScriptedBackend::describe();
    s.compute_clock_khz = 1980000;
    return s;
  }
};

// NVML as a script: readings in order, the last one repeated.
class ScriptedProbe : public detail::DeviceProbe {
 public:
  std::vector<detail::DeviceReading> readings;
  std::vector<std::optional<int>> margins{40};
  std::string why_not;
  std::size_t next = 0, next_margin = 0;

  std::string unavailable() const override { return why_not; }
  detail::DeviceReading read() override { return readings[std::min(next++, readings.size() - 1)]; }
  std::optional<int> margin_c() override {
    return margins[std::min(next_margin++, margins.size() - 1)];
  }
  std::optional<int> temperature_c() override { return 70; }
};

// A sweep of one config whose every run launches kernel "k" in region "k".
inline Results sweep_one_kernel(ScriptedBackend& gpu, const Options& o,
                                const detail::SweepServices& services) {
  return detail::run_sweep(
      gpu, o, Sweep(),
      [&](std::size_t, int) {
        Annotation a("k");
        gpu.launch("k", 1);
      },
      {}, services);
}

// Services reading `probe` after every run: on a clock that stands still a reading costs
// nothing, so no run shares another's (PacedReading).
inline detail::SweepServices read_every_run(detail::DeviceProbe& probe) {
  detail::SweepServices services;
  services.device = &probe;
  services.now_s = [] { return 0.0; };
  return services;
}

inline detail::DeviceReading reading(double mhz, int celsius, std::uint64_t reasons) {
  return {1000 * mhz, celsius, reasons};
}

struct LogCapture {
  std::vector<std::string> lines;
  LogCapture() {
    set_log_sink([this](std::string_view l) { lines.emplace_back(l); });
  }
  ~LogCapture() { set_log_sink(nullptr); }
  bool has(const std::string& needle) const {
    for (const auto& l : lines)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }
};

inline InfoCollector collector(std::string name, CollectionScope scope,
                               std::function<InfoResult(const CollectorCall&)> fn) {
  return {std::move(name), scope, std::move(fn)};
}

}  // namespace kprof::testing::conditions
