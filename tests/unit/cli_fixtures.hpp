// What the CLI tests share: a scripted H200 and a machine without a driver, environments,
// timing outcomes of the doctor's probe, and lookups in printed text.
#pragma once

#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace kprof::testing {

using namespace kprof::cli;

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The line of `text` that mentions `part`; empty if none.
inline std::string line_with(const std::string& text, const std::string& part) {
  for (const std::string& l : lines(text)) {
    if (contains(l, part)) return l;
  }
  return "";
}

inline SystemInfo h200() {
  SystemInfo sys;
  sys.built_with_cuda = true;
  sys.driver_loaded = true;
  sys.driver_version = 13000;
  sys.runtime_version = 13000;
  sys.cupti_version = 130001;
  sys.host = "gpu-host";
  sys.counter_permission = "yes (root)";
  DeviceInfo d;
  d.ordinal = 0;
  d.name = "NVIDIA H200";
  d.pci_bus_id = "0000:3b:00.0";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.memory_bytes = 150754820096;  // 140.4 GiB
  d.l2_bytes = 62914560;          // 60 MiB
  d.compute_clock_khz = 1980000;
  d.memory_clock_khz = 3201000;
  sys.devices.push_back(d);
  return sys;
}

inline SystemInfo no_driver() {
  SystemInfo sys;
  sys.built_with_cuda = true;
  sys.runtime_version = 13000;
  sys.cupti_version = 130001;
  sys.host = "ci";
  sys.counter_permission = "unknown (no driver)";
  return sys;
}

inline EnvFn env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

inline TimingOutcome measured(double us) {
  TimingOutcome t;
  t.kind = TimingOutcome::Kind::measured;
  t.requested_us = kProbeSpinUs;
  t.measured_us = us;
  t.backend = "cupti-activity";
  return t;
}

inline const Check& find_check(const std::vector<Check>& checks, const std::string& name) {
  for (const Check& c : checks) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no check " + name);
}

}  // namespace kprof::testing
