// Number formatting and column layout shared by the commands.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "cli/commands.hpp"

namespace kprof::cli {

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
