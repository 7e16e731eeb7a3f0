// Aligned text tables for people: the results table and the comparison table share one layout
// (two spaces between columns, numbers right-aligned, no trailing blanks).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kprof/units.hpp"

namespace kprof::detail {

// What a person reads for a missing value: "-" rather than "nan".
inline std::string cell_number(double v, int significant = kDisplayDigits) {
  return std::isnan(v) ? "-" : format_number(v, significant);
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
