// Reading a results document (results_json.cpp writes it): the tables stream into the core's
// structs (json_stream.hpp), the rest is read from a small DOM, and every error names the
// source, the place and what is valid.
#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/results/csv.hpp"
#include "core/results/json_decode.hpp"
#include "core/results/json_stream.hpp"
#include "core/results/results_checks.hpp"
#include "core/results/results_json_format.hpp"
#include "kprof/detail/result_fields.hpp"
#include "kprof/errors.hpp"
#include "kprof/results.hpp"

namespace kprof {
namespace {

using detail::BadValue;
using detail::decode;
using detail::Json;
using detail::TableSink;
using namespace fields;

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
  const List document{"configs", "runs", "info", "source"};
  const List none{};
  const List& names = where == "rows"       ? rows
                      : where == "records"  ? records
                      : where == "configs"  ? configs
                      : where == "document" ? document
                                            : none;
  return std::find(names.begin(), names.end(), name) != names.end();
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

// The document's tables, each read into its sink as it streams by.
struct Tables {
  TableSink<Record, decltype(record_fields)> records{"records", record_fields};
  TableSink<Sample, decltype(sample_fields)> samples{"samples", sample_fields};
  TableSink<Row, decltype(row_fields)> rows{"rows", row_fields};
  TableSink<ConfigInfo, decltype(config_fields)> configs{"configs", config_fields};
  TableSink<RunInfo, decltype(run_fields)> runs{"runs", run_fields};
  TableSink<InfoValue, decltype(info_fields)> info{"info", info_fields};
  TableSink<SourceSample, decltype(source_fields)> source{"source", source_fields};

  detail::ColumnSink* find(std::string_view key) {
    for (detail::ColumnSink* table : std::initializer_list<detail::ColumnSink*>{
             &records, &samples, &rows, &configs, &runs, &info, &source})
      if (key == table->name()) return table;
    return nullptr;
  }
};

// Reads one document, naming `source` (the file, or "string") in every error.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Results read(const std::string& text) const {
    Tables tables;
    const Json doc = parse(text, tables);
    check_format(doc);
    Results results(session(member(doc, "session", "the document")), sweep(doc),
                    columns(tables.records, doc), columns(tables.samples, doc),
                    columns(tables.rows, doc), columns(tables.configs, doc),
                    columns(tables.runs, doc), columns(tables.info, doc), parts(doc),
                    columns(tables.source, doc));
    return Results::checked(std::move(results), source_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError(source_ + ": " + what);
  }

  Json parse(const std::string& text, Tables& tables) const {
    try {
      return detail::parse_streaming(text,
                                     [&tables](std::string_view key) { return tables.find(key); });
    } catch (const Json::parse_error& e) {
      fail("not valid JSON: " + where_parsing_stopped(text, e.byte));
    } catch (const Json::out_of_range& e) {
      fail("not valid JSON: " + where_out_of_range(text, e.what()));
    } catch (const Json::exception& e) {
      fail("not valid JSON");
    }
  }

  void check_format(const Json& doc) const {
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != detail::kFormat)
      fail(std::string("not a kprof results document (no \"format\": \"") + detail::kFormat +
           "\")");
    const Json& version = member(doc, "version", "the document");
    if (version != detail::kVersion)
      fail("unsupported version " + version.dump() + "; this kprof reads version " +
           std::to_string(detail::kVersion));
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

  // Every column the struct has must be there and all must be of one length; then the first
  // value of the wrong kind, by item.
  template <class T, class Fields>
  std::vector<T> columns(TableSink<T, Fields>& table, const Json& doc) const {
    const std::string key = table.name();
    if (doc.contains(key)) fail(key + " is not a JSON object");  // an object streams
    if (!table.seen()) {
      if (added_later("document", key)) return {};
      fail("the document has no \"" + key + "\"");
    }
    const char* first = nullptr;
    std::size_t count = 0;
    for (const auto& column : table.columns()) {
      if (!column.present) {
        if (added_later(key, column.name)) continue;
        fail(key + " has no \"" + column.name + "\"");
      }
      if (!column.list) fail(key + "." + column.name + " is not a list");
      if (first == nullptr) {
        first = column.name;
        count = column.count;
      } else if (column.count != count) {
        fail(key + "." + column.name + " has " + std::to_string(column.count) + " values, " + key +
             "." + first + " has " + std::to_string(count));
      }
    }
    if (const auto& e = table.error())
      fail(key + "." + table.columns()[e->column].name + "[" + std::to_string(e->item) +
           "]: " + e->what);
    return table.take(count);
  }

  std::string source_;
};

}  // namespace

Results Results::from_json(const std::string& text) { return Reader("string").read(text); }

Results Results::checked(Results results, const std::string& source) {
  detail::check_read_results(
      results, source, [](std::string_view table, std::string_view field, std::size_t i) {
        return std::string(table) + "." + std::string(field) + "[" + std::to_string(i) + "]";
      });
  return results;
}

Results Results::read_json(const std::string& path) {
  return Reader(path).read(detail::read_text_file(path));
}

}  // namespace kprof
