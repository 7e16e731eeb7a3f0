// How kprof spells a device's quantities (kprof/device.hpp): pure text, no GPU needed.
#include <cmath>
#include <cstdio>
#include <string>

#include "kprof/device.hpp"

namespace kprof {
namespace {

// "%.1f" without a trailing ".0".
std::string compact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

}  // namespace

std::string cuda_version_string(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string format_bytes(std::int64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (std::fabs(v) >= 1024.0 && unit < 4) {
    v /= 1024.0;
    ++unit;
  }
  return compact(v) + " " + units[unit];
}

std::string format_clock(std::int64_t khz) {
  if (khz <= 0) return "-";
  return compact(static_cast<double>(khz) / 1000.0) + " MHz";
}

std::string format_cupti_version(int version) {
  if (version <= 0) return "none";
  // From CUDA 13.0 on, xxyyzz: 130001 is 13.0.1. Before, a plain API version (v28).
  if (version >= 100000) {
    return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
           std::to_string(version % 100);
  }
  return "v" + std::to_string(version);
}

}  // namespace kprof
