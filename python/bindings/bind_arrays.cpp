// The tables of kprof::Results as NumPy arrays, and Results from such arrays: what the Parquet
// file holds (kprof._parquet) and what the DataFrames are built from. Numbers are arrays of
// their width; text is dictionary-encoded (int32 codes into the column's distinct values, as
// Arrow's dictionary arrays hold it), so that a million records cost a few arrays and no Python
// string per value. Reading them back builds the structs directly: no JSON on the way.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "common.hpp"
#include "kprof/detail/result_fields.hpp"
#include "kprof/errors.hpp"
#include "kprof/results.hpp"

namespace kprof::py {
namespace {

using namespace kprof::fields;

// A text column: each value's code, and the distinct values in order of first appearance
// (views of the items' own strings, alive while the arrays are built).
struct Text {
  std::vector<std::int32_t> codes;
  std::vector<std::string_view> values;
  std::unordered_map<std::string_view, std::int32_t> index;

  void add(std::string_view s) {
    // Items come grouped (a region's records, a config's samples): most values are the one
    // before them again, which costs a comparison instead of a hash.
    if (!codes.empty() && s == values[codes.back()]) {
      codes.push_back(codes.back());
      return;
    }
    const auto [at, added] = index.try_emplace(s, static_cast<std::int32_t>(values.size()));
    if (added) values.push_back(s);
    codes.push_back(at->second);
  }
};

// A column being built: float64, int64, int8 (a flag; -1 where an optional one is unset) or
// text. A field of none of these kinds (a row's info statistics) is no column.
using Column = std::variant<std::monostate, std::vector<double>, std::vector<std::int64_t>,
                            std::vector<std::int8_t>, Text>;

template <typename T>
constexpr bool is_flag = std::is_same_v<T, bool> || std::is_same_v<T, std::optional<bool>>;

template <typename T>
Column blank_column() {
  if constexpr (std::is_same_v<T, std::string>)
    return Text{};
  else if constexpr (std::is_same_v<T, double>)
    return std::vector<double>{};
  else if constexpr (is_flag<T>)
    return std::vector<std::int8_t>{};
  else if constexpr (std::is_integral_v<T>)
    return std::vector<std::int64_t>{};
  else
    return std::monostate{};
}

template <typename T>
void append(Column& column, const T& v) {
  if constexpr (std::is_same_v<T, std::string>)
    std::get<Text>(column).add(v);
  else if constexpr (std::is_same_v<T, double>)
    std::get<std::vector<double>>(column).push_back(v);
  else if constexpr (std::is_same_v<T, bool>)
    std::get<std::vector<std::int8_t>>(column).push_back(v);
  else if constexpr (std::is_same_v<T, std::optional<bool>>)
    std::get<std::vector<std::int8_t>>(column).push_back(v ? std::int8_t(*v) : std::int8_t(-1));
  else if constexpr (std::is_integral_v<T>)
    std::get<std::vector<std::int64_t>>(column).push_back(static_cast<std::int64_t>(v));
}

// A NumPy array that owns `v`'s memory.
template <typename V>
nb::object numpy(std::vector<V> v) {
  auto* owned = new std::vector<V>(std::move(v));
  owned->reserve(1);  // an empty array still has an address
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<V>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, V, nb::ndim<1>>(owned->data(), {owned->size()}, owner));
}

nb::object to_python(Column& column) {
  if (auto* text = std::get_if<Text>(&column)) {
    nb::list values;
    for (std::string_view s : text->values) values.append(nb::str(s.data(), s.size()));
    return nb::make_tuple(numpy(std::move(text->codes)), values);
  }
  return std::visit(
      [](auto& v) -> nb::object {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
          return nb::none();
        else if constexpr (std::is_same_v<std::decay_t<decltype(v)>, Text>)
          return nb::none();
        else
          return numpy(std::move(v));
      },
      column);
}

// {field: array, or (codes, values) for text}, in the order of `fields`.
template <typename Item, typename Fields>
nb::dict to_arrays(const std::vector<Item>& items, Fields fields) {
  std::vector<const char*> names;
  std::vector<Column> columns;
  const Item blank{};
  fields(blank, [&](const char* name, const auto& v) {
    names.push_back(name);
    columns.push_back(blank_column<std::decay_t<decltype(v)>>());
  });
  for (Column& c : columns)
    std::visit(
        [&](auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, Text>)
            v.codes.reserve(items.size());
          else if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
            v.reserve(items.size());
        },
        c);
  for (const Item& item : items) {
    std::size_t k = 0;
    fields(item, [&](const char*, const auto& v) { append(columns[k++], v); });
  }
  nb::dict out;
  for (std::size_t k = 0; k < columns.size(); ++k)
    if (!std::holds_alternative<std::monostate>(columns[k])) out[names[k]] = to_python(columns[k]);
  return out;
}

// One column given back: a pointer to its numbers, or its codes and distinct values.
struct Source {
  const void* numbers = nullptr;
  const std::int32_t* codes = nullptr;
  std::vector<std::string> values;
  std::size_t size = 0;
};

template <typename V>
Source numbers(nb::handle array) {
  // No conversion: a converted copy would not outlive this call.
  const auto a =
      nb::cast<nb::ndarray<const V, nb::ndim<1>, nb::c_contig, nb::device::cpu>>(array, false);
  return {a.data(), nullptr, {}, a.shape(0)};
}

// The values of an integer field narrower than int64 (a run, a line, a module's CRC) must fit.
template <typename T>
void check_range(const Source& s, const std::string& place) {
  if constexpr (std::is_integral_v<T> && !is_flag<T> && sizeof(T) < sizeof(std::int64_t)) {
    const auto* v = static_cast<const std::int64_t*>(s.numbers);
    for (std::size_t i = 0; i < s.size; ++i)
      if (v[i] < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
          v[i] > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
        throw kprof::FormatError(place + "[" + std::to_string(i) + "]: " + std::to_string(v[i]) +
                                 " is out of the field's range");
  }
}

template <typename T>
Source source(nb::handle column, const std::string& place) {
  try {
    if constexpr (std::is_same_v<T, std::string>) {
      const auto pair = nb::cast<nb::tuple>(column);
      Source s = numbers<std::int32_t>(pair[0]);
      s.codes = static_cast<const std::int32_t*>(s.numbers);
      s.values = nb::cast<std::vector<std::string>>(pair[1]);
      for (std::size_t i = 0; i < s.size; ++i)
        if (s.codes[i] < 0 || static_cast<std::size_t>(s.codes[i]) >= s.values.size())
          throw kprof::FormatError(place + "[" + std::to_string(i) + "]: code " +
                                   std::to_string(s.codes[i]) + " names no value (" +
                                   std::to_string(s.values.size()) + " values)");
      return s;
    } else if constexpr (std::is_same_v<T, double>) {
      return numbers<double>(column);
    } else if constexpr (is_flag<T>) {
      return numbers<std::int8_t>(column);
    } else {
      Source s = numbers<std::int64_t>(column);
      check_range<T>(s, place);
      return s;
    }
  } catch (const nb::cast_error&) {
    throw kprof::FormatError(place + ": not a column of the kind the field holds");
  }
}

template <typename T>
void assign(T& field, const Source& s, std::size_t i) {
  if constexpr (std::is_same_v<T, std::string>)
    field = s.values[s.codes[i]];
  else if constexpr (std::is_same_v<T, double>)
    field = static_cast<const double*>(s.numbers)[i];
  else if constexpr (std::is_same_v<T, bool>)
    field = static_cast<const std::int8_t*>(s.numbers)[i] > 0;
  else if constexpr (std::is_same_v<T, std::optional<bool>>) {
    const std::int8_t v = static_cast<const std::int8_t*>(s.numbers)[i];
    field = v < 0 ? std::nullopt : std::optional<bool>(v > 0);
  } else if constexpr (std::is_integral_v<T>)
    field = static_cast<T>(static_cast<const std::int64_t*>(s.numbers)[i]);
}

// The inverse of to_arrays(). A field the table lacks keeps its default (a file written before
// the field existed); columns of different lengths are a FormatError naming `table`.
template <typename Item, typename Fields>
std::vector<Item> from_arrays(const nb::dict& table, Fields fields, const std::string& name) {
  // `name` is "<source>: <table>", which every message starts with.
  std::vector<std::optional<Source>> sources;
  std::optional<std::size_t> n;
  const Item blank{};
  fields(blank, [&](const char* field, const auto& v) {
    using T = std::decay_t<decltype(v)>;
    if (std::holds_alternative<std::monostate>(blank_column<T>()) || !table.contains(field)) {
      sources.emplace_back();
      return;
    }
    const std::string place = name + "." + field;
    sources.push_back(source<T>(table[field], place));
    if (n && *n != sources.back()->size)
      throw kprof::FormatError(place + ": " + std::to_string(sources.back()->size) +
                               " values where the table's other columns have " +
                               std::to_string(*n));
    n = sources.back()->size;
  });
  std::vector<Item> items(n.value_or(0));
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::size_t k = 0;
    fields(items[i], [&](const char*, auto& field) {
      if (const auto& s = sources[k++]) assign(field, *s, i);
    });
  }
  return items;
}

// The table `name` of `tables` when given, else `current`.
template <typename Item, typename Fields>
std::vector<Item> table_or(const nb::dict& tables, const char* name,
                           const std::vector<Item>& current, Fields fields,
                           const std::string& source) {
  if (!tables.contains(name)) return current;
  nb::dict table;
  if (!nb::try_cast(tables[name], table))
    throw kprof::FormatError(source + ": " + name + ": not a table of columns");
  return from_arrays<Item>(table, fields, source + ": " + name);
}

// A row's fields but its info statistics, which no array holds.
constexpr auto flat_row_fields = [](auto& r, auto&& f) {
  row_fields(r, [&](const char* name, auto& v) {
    if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::vector<kprof::InfoStat>>)
      f(name, v);
  });
};

nb::dict table_arrays(const kprof::Results& r, const std::string& table) {
  if (table == "records") return to_arrays(r.records(), record_fields);
  if (table == "samples") return to_arrays(r.samples(), sample_fields);
  if (table == "rows") return to_arrays(r.rows(), flat_row_fields);
  if (table == "configs") return to_arrays(r.config_info(), config_fields);
  if (table == "runs") return to_arrays(r.run_info(), run_fields);
  if (table == "info") return to_arrays(r.info(), info_fields);
  if (table == "source") return to_arrays(r.source(), source_fields);
  throw nb::value_error(
      ("no table '" + table + "'; valid: records, samples, rows, configs, runs, info, source")
          .c_str());
}

// The JSON document of `r` with the tables named in `tables` empty: what rides beside their
// arrays.
std::string document_without(const kprof::Results& r, const std::vector<std::string>& tables) {
  const auto kept = [&tables](const char* name, const auto& items) {
    const bool dropped = std::find(tables.begin(), tables.end(), name) != tables.end();
    return dropped ? std::decay_t<decltype(items)>{} : items;
  };
  return kprof::Results(r.session(), r.sweep(), kept("records", r.records()),
                        kept("samples", r.samples()), kept("rows", r.rows()),
                        kept("configs", r.config_info()), kept("runs", r.run_info()),
                        kept("info", r.info()), r.parts(), kept("source", r.source()))
      .to_json();
}

// Results from the JSON document `document` (session, sweep, parts, and any table not in
// `tables`) and the tables of `tables` ({name: table_arrays(name)}), checked as a read file is.
kprof::Results results_from_arrays(const std::string& document, const nb::dict& tables,
                                   const std::string& source) {
  const kprof::Results base = [&] {
    try {
      return kprof::Results::from_json(document);
    } catch (const kprof::FormatError& e) {  // named "string" by the reader: name the file
      const std::string what = e.what();
      throw kprof::FormatError(source + ": " +
                               (what.starts_with("string: ") ? what.substr(8) : what));
    }
  }();
  kprof::Results r(base.session(), base.sweep(),
                   table_or(tables, "records", base.records(), record_fields, source),
                   table_or(tables, "samples", base.samples(), sample_fields, source),
                   table_or(tables, "rows", base.rows(), flat_row_fields, source),
                   table_or(tables, "configs", base.config_info(), config_fields, source),
                   table_or(tables, "runs", base.run_info(), run_fields, source),
                   table_or(tables, "info", base.info(), info_fields, source), base.parts(),
                   table_or(tables, "source", base.source(), source_fields, source));
  return kprof::Results::checked(std::move(r), source);
}

}  // namespace

void bind_arrays(nb::module_& m) {
  m.def("table_arrays", &table_arrays, nb::arg("results"), nb::arg("table"),
        "One of the results' tables (records, samples, rows, configs, runs, info, source) as "
        "{field: array}: numbers as NumPy arrays (float64, int64, int8 for flags with -1 where "
        "unset), text as (int32 codes, [distinct values]). A row's info statistics are not in "
        "it.");
  m.def("document_without", &document_without, nb::arg("results"), nb::arg("tables"),
        "The results' JSON document with the tables named in `tables` empty.");
  m.def("results_from_arrays", &results_from_arrays, nb::arg("document"), nb::arg("tables"),
        nb::arg("source"),
        "Results from a JSON document (session, sweep, parts, and any table `tables` lacks) and "
        "{table: table_arrays(table)}, checked as a file read from `source` is (FormatError).");
}

}  // namespace kprof::py
