#include "core/results/json_decode.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/number_text.hpp"
#include "kprof/detail/result_fields.hpp"

namespace kprof::detail {

using namespace fields;

void decode(const Json& j, std::string& out) {
  if (!j.is_string()) throw BadValue{"expected a string, found " + j.dump()};
  out = j.get<std::string>();
}

void decode(const Json& j, std::vector<std::string>& out) {
  if (!j.is_array()) throw BadValue{"expected a list of strings, found " + j.dump()};
  out.assign(j.size(), {});
  for (std::size_t i = 0; i < j.size(); ++i) decode(j[i], out[i]);
}

void decode(const Json& j, bool& out) {
  if (!j.is_boolean()) throw BadValue{"expected true or false, found " + j.dump()};
  out = j.get<bool>();
}

void decode(const Json& j, double& out) {
  if (j.is_null()) {
    out = std::numeric_limits<double>::quiet_NaN();
  } else if (j.is_number()) {
    out = j.get<double>();
  } else if (j == "inf" || j == "-inf") {
    const double inf = std::numeric_limits<double>::infinity();
    out = j == "inf" ? inf : -inf;
  } else {
    throw BadValue{"expected a number, null, \"inf\" or \"-inf\", found " + j.dump()};
  }
}

void decode(const Json& j, std::optional<bool>& out) {
  if (!j.is_null() && !j.is_boolean()) throw BadValue{"expected true, false or null"};
  out = j.is_null() ? std::nullopt : std::optional<bool>(j.get<bool>());
}

void decode(const Json& j, std::vector<InfoStat>& out) {
  if (!j.is_array()) throw BadValue{"expected a list of info columns, found " + j.dump()};
  out.assign(j.size(), {});
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_object()) throw BadValue{"expected an object, found " + j[i].dump()};
    info_stat_fields(out[i], [&](const char* name, auto& field) {
      const auto it = j[i].find(name);
      if (it == j[i].end()) throw BadValue{std::string("an info column has no \"") + name + "\""};
      decode(*it, field);
    });
  }
}

void decode(const Json& j, Value& out) {
  if (j.is_number_integer()) {
    std::int64_t i = 0;
    decode(j, i);
    out = i;
  } else if (j.is_string()) {
    out = j.get<std::string>();
  } else if (j.is_object() && j.size() == 1 && j.contains("double") && j["double"].is_string()) {
    const auto d = parse_double(j["double"].get<std::string>());
    if (!d)
      throw BadValue{"expected {\"double\": \"nan\" | \"inf\" | \"-inf\"}, found " + j.dump()};
    out = *d;
  } else {
    double d = 0;
    decode(j, d);
    out = d;
  }
}

}  // namespace kprof::detail
