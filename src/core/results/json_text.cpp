#include "core/results/json_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <nlohmann/json.hpp>

namespace kprof::detail {

void append_json(std::string& out, std::string_view text) {
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte < 0x80 && c != '"' && c != '\\';
  });
  if (!plain) {
    out += nlohmann::json(text).dump();
    return;
  }
  out += '"';
  out += text;
  out += '"';
}

void append_json(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "null";
  } else if (std::isinf(value)) {
    out += value > 0 ? "\"inf\"" : "\"-inf\"";
  } else {
    // nlohmann's own shortest round-trip form (dump_float), ".0" on whole numbers included.
    std::array<char, 64> buffer{};
    const char* end =
        nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    out.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
  }
}

void append_json(std::string& out, std::int64_t value) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data()));
}

void append_json(std::string& out, std::uint64_t value) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data()));
}

void append_json(std::string& out, bool value) { out += value ? "true" : "false"; }

void append_json(std::string& out, const std::optional<bool>& value) {
  if (value)
    append_json(out, *value);
  else
    out += "null";
}

}  // namespace kprof::detail
