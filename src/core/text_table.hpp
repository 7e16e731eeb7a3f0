// Aligned text tables for people: the results table and the comparison table share one layout
// (two spaces between columns, numbers right-aligned, no trailing blanks).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kprof/units.hpp"

namespace kprof::detail {

// From this power of ten on, a cell is written in exponent form.
inline constexpr int kCellExponentFrom = 6;

// A number as a table cell: "-" for a missing value rather than "nan", and from a million on
// the exponent form ("7.427e+14"), so that the large values of a metric whose unit has no
// larger step (math_op/second) read alike, whatever their size: format_number writes every
// integer digit up to 1e15 ("742743752145491" beside "1.645e+15").
inline std::string cell_number(double v, int significant = kDisplayDigits) {
  if (std::isnan(v)) return "-";
  if (!std::isfinite(v)) return format_number(v, significant);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", std::max(significant, 1) - 1, v);
  const std::string rounded = buf;  // the exponent after rounding: 999999.7 is 1.000e+06
  const std::size_t e = rounded.find('e');
  if (std::atoi(rounded.c_str() + e + 1) < kCellExponentFrom) return format_number(v, significant);
  std::string mantissa = rounded.substr(0, e);
  if (mantissa.find('.') != std::string::npos) {
    mantissa.erase(mantissa.find_last_not_of('0') + 1);
    if (mantissa.back() == '.') mantissa.pop_back();
  }
  return mantissa + rounded.substr(e);
}

struct TextTable {
  std::vector<std::string> header;
  std::vector<bool> right;  // right-aligned (numbers)
  std::vector<std::vector<std::string>> lines;

  void column(std::string name, bool right_aligned) {
    header.push_back(std::move(name));
    right.push_back(right_aligned);
  }

  std::string render(const std::string& indent = "") const {
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
      width[c] = header[c].size();
      for (const auto& line : lines) width[c] = std::max(width[c], line[c].size());
    }
    std::string out = render_line(header, width, indent);
    for (const auto& line : lines) out += render_line(line, width, indent);
    return out;
  }

 private:
  std::string render_line(const std::vector<std::string>& cells,
                          const std::vector<std::size_t>& width, const std::string& indent) const {
    std::string out = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      if (c > 0) out += "  ";
      out += right[c] ? pad + cells[c] : cells[c] + pad;
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  }
};

}  // namespace kprof::detail
