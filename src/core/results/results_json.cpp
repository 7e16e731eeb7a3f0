// Results as one JSON document. Lists of records, samples and rows are stored by column
// ({"value": [..], "unit": [..]}) rather than as lists of objects: the keys are written once,
// which keeps files several times smaller.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/number_text.hpp"
#include "core/results/csv.hpp"
#include "core/results/json_text.hpp"
#include "core/results/results_json_format.hpp"
#include "kprof/detail/result_fields.hpp"
#include "kprof/errors.hpp"
#include "kprof/results.hpp"

namespace kprof {
namespace {

using Json = nlohmann::ordered_json;
using namespace fields;

using detail::kFormat;
using detail::kVersion;

Json encode(const std::string& s) { return s; }
Json encode(const std::vector<std::string>& v) { return v; }
Json encode(std::integral auto v) { return v; }
Json encode(bool b) { return b; }

// JSON has no NaN or infinity: NaN is null, the infinities are the strings "inf" and "-inf".
Json encode(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// A non-finite double in a sweep is {"double": "nan"}: a bare string would read back as a
// string parameter.
Json encode(const Value& v) {
  if (const auto* d = std::get_if<double>(&v); d && !std::isfinite(*d))
    return Json{{"double", detail::format_double(*d)}};
  return std::visit([](const auto& x) { return Json(x); }, v);
}

// A row's info columns: a list of objects, one per collector.
Json encode(const std::vector<InfoStat>& stats) {
  Json list = Json::array();
  for (const InfoStat& stat : stats) {
    Json object = Json::object();
    info_stat_fields(stat, [&](const char* name, const auto& v) { object[name] = encode(v); });
    list.push_back(std::move(object));
  }
  return list;
}

// One value of a table as encode() gives it: the common kinds written straight into the text,
// the others (a sweep value, a row's info columns) through the DOM.
template <class V>
void append_value(std::string& out, const V& v) {
  if constexpr (std::is_same_v<V, std::string> || std::is_same_v<V, double> ||
                std::is_same_v<V, bool> || std::is_same_v<V, std::optional<bool>> ||
                std::integral<V>)
    detail::append_json(out, v);
  else
    out += encode(v).dump();
}

// A table as {"field": [value, ...], ...}, written as text: the tables are most of a document,
// and their DOM would take several times the memory and time of the text.
template <class T, class Fields>
void append_columns(std::string& out, const std::vector<T>& items, Fields fields) {
  std::vector<const char*> names;
  std::vector<std::string> columns;
  const T probe{};
  fields(probe, [&](const char* name, const auto&) {
    names.push_back(name);
    columns.emplace_back("[");
  });
  for (const T& item : items) {
    std::size_t k = 0;
    fields(item, [&](const char*, const auto& v) {
      std::string& column = columns[k++];
      if (column.size() > 1) column += ',';
      append_value(column, v);
    });
  }
  out += '{';
  for (std::size_t k = 0; k < columns.size(); ++k) {
    if (k > 0) out += ',';
    detail::append_json(out, std::string_view(names[k]));
    out += ':';
    out += columns[k];
    out += ']';
    std::string().swap(columns[k]);  // each column's memory goes as soon as it is copied
  }
  out += '}';
}

Json session_to_json(const SessionInfo& s) {
  Json out = Json::object();
  session_fields(s, [&](const char* name, const auto& v) { out[name] = encode(v); });
  return out;
}

Json sweep_to_json(const Sweep& sweep) {
  Json points = Json::array();
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    Json point = Json::array();
    for (const Value& v : sweep.point(i)) point.push_back(encode(v));
    points.push_back(std::move(point));
  }
  return Json{{"names", sweep.names()}, {"points", std::move(points)}};
}

}  // namespace

std::string Results::to_json() const {
  Json head = Json::object();
  head["format"] = kFormat;
  head["version"] = kVersion;
  head["session"] = session_to_json(session_);
  head["sweep"] = sweep_to_json(sweep_);
  std::string out = head.dump();
  out.pop_back();  // its closing brace: the tables follow
  const auto table = [&out](const char* name, const auto& items, auto fields) {
    out += ",\"";
    out += name;
    out += "\":";
    append_columns(out, items, fields);
  };
  table("records", records_, record_fields);
  table("samples", samples_, sample_fields);
  table("rows", rows_, row_fields);
  table("configs", configs_, config_fields);
  table("runs", runs_, run_fields);
  table("info", info_, info_fields);
  if (!source_.empty()) table("source", source_, source_fields);  // set:source only
  if (!parts_.empty()) {
    Json parts = Json::array();
    for (const ResultPart& p : parts_)
      parts.push_back({{"first_config", p.first_config},
                       {"configs", p.configs},
                       {"session", session_to_json(p.session)}});
    out += ",\"parts\":" + parts.dump();
  }
  out += '}';
  return out;
}

void Results::write_json(const std::string& path) const {
  detail::write_text_file_atomic(path, to_json() + "\n");
}

}  // namespace kprof
