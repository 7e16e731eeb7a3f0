// The values of a results document read from JSON into the core's types, one overload per
// type; a value of the wrong kind throws BadValue, and the reader adds where it was.
#pragma once

#include <concepts>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kprof/results.hpp"

namespace kprof::detail {

using Json = nlohmann::ordered_json;

// A JSON value of the wrong kind; the reader adds where it was.
struct BadValue {
  std::string what;
};

void decode(const Json& j, std::string& out);
void decode(const Json& j, std::vector<std::string>& out);
void decode(const Json& j, bool& out);
void decode(const Json& j, double& out);
void decode(const Json& j, std::optional<bool>& out);
void decode(const Json& j, std::vector<InfoStat>& out);
void decode(const Json& j, Value& out);

template <std::integral I>
requires(!std::same_as<I, bool>) void decode(const Json& j, I& out) {
  const bool fits = j.is_number_unsigned()
                        ? std::in_range<I>(j.get<std::uint64_t>())
                        : j.is_number_integer() && std::in_range<I>(j.get<std::int64_t>());
  if (!fits) throw BadValue{"expected an integer that fits, found " + j.dump()};
  out = j.is_number_unsigned() ? static_cast<I>(j.get<std::uint64_t>())
                               : static_cast<I>(j.get<std::int64_t>());
}

}  // namespace kprof::detail
