// JSON text written value by value, for the large tables of a results document: a DOM of a
// million records costs several times the time and memory of the text it becomes. Each
// function writes what nlohmann::json's dump() writes for the same value, byte for byte, so
// that files read and compare as before.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kprof::detail {

// A string, escaped as JSON; text that is not plain printable ASCII takes nlohmann's own path
// (its escapes, and its refusal of text that is not UTF-8).
void append_json(std::string& out, std::string_view text);
// A number; NaN is null and the infinities are the strings "inf" and "-inf" (JSON has none).
void append_json(std::string& out, double value);
void append_json(std::string& out, std::int64_t value);
void append_json(std::string& out, std::uint64_t value);
void append_json(std::string& out, bool value);
void append_json(std::string& out, const std::optional<bool>& value);  // null when unset

template <std::integral I>
requires(!std::same_as<I, bool>) void append_json(std::string& out, I value) {
  if constexpr (std::is_signed_v<I>)
    append_json(out, static_cast<std::int64_t>(value));
  else
    append_json(out, static_cast<std::uint64_t>(value));
}

}  // namespace kprof::detail
