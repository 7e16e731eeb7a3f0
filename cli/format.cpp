// Number formatting and column layout shared by the commands.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "cli/commands.hpp"

namespace kprof::cli {

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

std::string format_duration_ns(double ns) {
  if (!std::isfinite(ns)) return "n/a";
  char buf[32];
  if (ns >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  } else if (ns >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.3g us", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g ns", ns);
  }
  return buf;
}

void print_columns(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                   const std::string& indent) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
}

}  // namespace kprof::cli
