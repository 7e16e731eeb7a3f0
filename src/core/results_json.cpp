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

#include "core/csv.hpp"
#include "core/json_text.hpp"
#include "core/results_checks.hpp"
#include "kprof/errors.hpp"
#include "kprof/result_fields.hpp"
#include "kprof/results.hpp"

namespace kprof {
namespace {

using Json = nlohmann::ordered_json;
using namespace fields;

constexpr const char* kFormat = "kprof-results";
constexpr int kVersion = 1;

// Fields and tables added after the first files were written: a document without them reads
// with their defaults (empty tables, NaN, 0), so results saved by earlier versions still load.
// `where`: "session", "rows", or "document" for the tables.
bool added_later(std::string_view where, std::string_view name) {
  if (where == "session") return session_field_added_later(name);
  using List = std::initializer_list<std::string_view>;
  const List rows{"runs_done",      "stopped_by", "measured_clock_khz", "temperature_c",
                  "throttled_runs", "info",       "overhead_seconds"};
  const List configs{"unprofiled_seconds"};
  const List records{"start_ns", "end_ns", "stream", "kind", "bytes"};
  const List document{"configs", "runs", "info"};
  const List none{};
  const List& names = where == "rows"       ? rows
                      : where == "records"  ? records
                      : where == "configs"  ? configs
                      : where == "document" ? document
                                            : none;
  return std::find(names.begin(), names.end(), name) != names.end();
}

// ---- writing -------------------------------------------------------------------------------

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

// ---- reading -------------------------------------------------------------------------------

// A JSON value of the wrong kind; the reader adds where it was.
struct BadValue {
  std::string what;
};

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

template <std::integral I>
requires(!std::same_as<I, bool>) void decode(const Json& j, I& out) {
  const bool fits = j.is_number_unsigned()
                        ? std::in_range<I>(j.get<std::uint64_t>())
                        : j.is_number_integer() && std::in_range<I>(j.get<std::int64_t>());
  if (!fits) throw BadValue{"expected an integer that fits, found " + j.dump()};
  out = j.is_number_unsigned() ? static_cast<I>(j.get<std::uint64_t>())
                               : static_cast<I>(j.get<std::int64_t>());
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
    const auto d = detail::parse_double(j["double"].get<std::string>());
    if (!d)
      throw BadValue{"expected {\"double\": \"nan\" | \"inf\" | \"-inf\"}, found " + j.dump()};
    out = *d;
  } else {
    double d = 0;
    decode(j, d);
    out = d;
  }
}

// Whether `text` is well-formed UTF-8 (a sequence cut at its end counts as well-formed).
bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c < 0x80           ? 1
                          : (c >> 5) == 0x6  ? 2
                          : (c >> 4) == 0xE  ? 3
                          : (c >> 3) == 0x1E ? 4
                                             : 0;
    if (n == 0) return false;
    for (std::size_t k = 1; k < n && i + k < text.size(); ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// "line 3, column 12" of byte `at` (0-based) of `text`.
std::string line_and_column(const std::string& text, std::size_t at) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;  // a UTF-8 character counts once
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Follows a parse to the value where it failed: its byte and its path in the document
// ("rows.mean[3]"). Used only after a parse failed without a place (a number out of range),
// so that the message can say where.
class PlaceOfFailure : public nlohmann::json_sax<Json> {
 public:
  std::size_t byte = 0;  // 1-based, as the parser counts
  std::string path;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t at, const std::string&, const Json::exception&) override {
    byte = at;
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "[" + std::string.
    for (const Frame& f : frames_) {
      if (f.array)
        path.append("[").append(std::to_string(f.index)).append("]");
      else
        path.append(path.empty() ? "" : ".").append(f.key);
    }
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    std::string key;        // objects: the member being read
    std::size_t index = 0;  // arrays: the element being read
  };
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }
  bool open(bool array) {
    frames_.push_back({array, {}, 0});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return value();
  }
  std::vector<Frame> frames_;
};

// Where and why a parse failed that the parser gave no place for: a number beyond a double's
// range ("1e400") is its usual cause.
std::string where_out_of_range(const std::string& text, const std::string& parser_message) {
  PlaceOfFailure place;
  Json::sax_parse(text, &place);
  const std::size_t quote = parser_message.find('\'');
  const std::string token =
      quote == std::string::npos
          ? ""
          : parser_message.substr(quote + 1, parser_message.rfind('\'') - quote - 1);
  // The parser stops after the token: its first byte is the token's length before.
  const std::size_t start = place.byte >= token.size() ? place.byte - token.size() : 0;
  return (token.empty() ? "a value" : "the number " + token) + " at " +
         line_and_column(text, start) + (place.path.empty() ? "" : " (" + place.path + ")") +
         " is out of range; valid: numbers within a double's range (about 1.8e308), null for a "
         "missing value, \"inf\" and \"-inf\"";
}

// Why and where JSON text stopped parsing at byte `byte` (1-based), in words: the parser's own
// message names its internals and quotes the raw bytes, which may not even be text.
std::string where_parsing_stopped(const std::string& text, std::size_t byte) {
  const std::size_t at = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const std::string place = line_and_column(text, at);
  if (text.find('\0') != std::string::npos) return "binary data, not text (" + place + ")";
  if (!valid_utf8(std::string_view(text).substr(0, std::min(at + 4, text.size()))))
    return "the text is not UTF-8 (" + place + ")";
  if (at >= text.size()) return "it ends early, at " + place;
  return "unexpected text at " + place;
}

// Reads one document, naming `source` (the file, or "string") in every error.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Results read(const std::string& text) const {
    const Json doc = parse(text);
    check_format(doc);
    Results results(session(member(doc, "session", "the document")), sweep(doc),
                    columns<Record>(doc, "records", record_fields),
                    columns<Sample>(doc, "samples", sample_fields),
                    columns<Row>(doc, "rows", row_fields),
                    columns<ConfigInfo>(doc, "configs", config_fields),
                    columns<RunInfo>(doc, "runs", run_fields),
                    columns<InfoValue>(doc, "info", info_fields), parts(doc));
    detail::check_read_results(
        results, source_, [](std::string_view table, std::string_view field, std::size_t i) {
          return std::string(table) + "." + std::string(field) + "[" + std::to_string(i) + "]";
        });
    return results;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError(source_ + ": " + what);
  }

  Json parse(const std::string& text) const {
    try {
      return Json::parse(text);
    } catch (const Json::parse_error& e) {
      fail("not valid JSON: " + where_parsing_stopped(text, e.byte));
    } catch (const Json::out_of_range& e) {
      fail("not valid JSON: " + where_out_of_range(text, e.what()));
    } catch (const Json::exception& e) {
      fail("not valid JSON");
    }
  }

  void check_format(const Json& doc) const {
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat)
      fail(std::string("not a kprof results document (no \"format\": \"") + kFormat + "\")");
    const Json& version = member(doc, "version", "the document");
    if (version != kVersion)
      fail("unsupported version " + version.dump() + "; this kprof reads version " +
           std::to_string(kVersion));
  }

  const Json& member(const Json& object, const std::string& key, const std::string& where) const {
    if (!object.is_object()) fail(where + " is not a JSON object");
    const auto it = object.find(key);
    if (it == object.end()) fail(where + " has no \"" + key + "\"");
    return *it;
  }

  template <class T>
  void read_value(const Json& j, T& out, const std::string& where) const {
    try {
      decode(j, out);
    } catch (const BadValue& e) {
      fail(where + ": " + e.what);
    }
  }

  SessionInfo session(const Json& j) const {
    SessionInfo s;
    session_fields(s, [&](const char* name, auto& field) {
      if (added_later("session", name) && j.is_object() && !j.contains(name)) return;
      read_value(member(j, name, "session"), field, std::string("session.") + name);
    });
    return s;
  }

  // Merged results name the session of each part; the results of one profile have no "parts".
  std::vector<ResultPart> parts(const Json& doc) const {
    std::vector<ResultPart> out;
    if (!doc.contains("parts")) return out;
    const Json& j = doc["parts"];
    if (!j.is_array()) fail("parts is not a list");
    for (std::size_t i = 0; i < j.size(); ++i) {
      const std::string where = "parts[" + std::to_string(i) + "]";
      ResultPart& p = out.emplace_back();
      read_value(member(j[i], "first_config", where), p.first_config, where + ".first_config");
      read_value(member(j[i], "configs", where), p.configs, where + ".configs");
      p.session = session(member(j[i], "session", where));
    }
    return out;
  }

  Sweep sweep(const Json& doc) const {
    const Json& j = member(doc, "sweep", "the document");
    std::vector<std::string> names;
    read_value(member(j, "names", "sweep"), names, "sweep.names");
    const Json& points_json = member(j, "points", "sweep");
    if (!points_json.is_array()) fail("sweep.points is not a list");
    std::vector<std::vector<Value>> points;
    for (std::size_t i = 0; i < points_json.size(); ++i) {
      const std::string where = "sweep.points[" + std::to_string(i) + "]";
      const Json& p = points_json[i];
      if (!p.is_array() || p.size() != names.size())
        fail(where + " is not a list of " + std::to_string(names.size()) + " values");
      points.emplace_back(p.size());
      for (std::size_t k = 0; k < p.size(); ++k) read_value(p[k], points.back()[k], where);
    }
    if (names.empty() && points.size() == 1) return Sweep();
    try {
      return Sweep::list(std::move(names), std::move(points));
    } catch (const ConfigError& e) {
      fail(std::string("sweep: ") + e.what());
    }
  }

  // Every column the struct has must be there and all must be of one length.
  template <class T, class Fields>
  std::vector<T> columns(const Json& doc, const std::string& key, Fields fields) const {
    if (added_later("document", key) && doc.is_object() && !doc.contains(key)) return {};
    const Json& table = member(doc, key, "the document");
    std::vector<const Json*> cols;  // null: a column added later that this document lacks
    const Json* sized = nullptr;
    const char* first = nullptr;
    const T probe{};
    fields(probe, [&](const char* name, const auto&) {
      if (added_later(key, name) && table.is_object() && !table.contains(name)) {
        cols.push_back(nullptr);
        return;
      }
      const Json& col = member(table, name, key);
      if (!col.is_array()) fail(key + "." + name + " is not a list");
      if (sized == nullptr) {
        first = name;
        sized = &col;
      } else if (col.size() != sized->size()) {
        fail(key + "." + name + " has " + std::to_string(col.size()) + " values, " + key + "." +
             first + " has " + std::to_string(sized->size()));
      }
      cols.push_back(&col);
    });
    std::vector<T> items(sized->size());
    const char* current = "";
    std::size_t i = 0;
    try {
      for (; i < items.size(); ++i) {
        std::size_t k = 0;
        fields(items[i], [&](const char* name, auto& field) {
          current = name;
          const Json* col = cols[k++];
          if (col != nullptr) decode((*col)[i], field);
        });
      }
    } catch (const BadValue& e) {
      fail(key + "." + current + "[" + std::to_string(i) + "]: " + e.what);
    }
    return items;
  }

  std::string source_;
};

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

Results Results::from_json(const std::string& text) { return Reader("string").read(text); }

void Results::write_json(const std::string& path) const {
  detail::write_text_file_atomic(path, to_json() + "\n");
}

Results Results::read_json(const std::string& path) {
  return Reader(path).read(detail::read_text_file(path));
}

}  // namespace kprof
