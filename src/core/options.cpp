// The loops over the option table (kprof/options.hpp): validation, the text form of every
// option, its description, and the parse and name functions of the enumerations.
#include "kprof/options.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/number_text.hpp"
#include "core/option_checks.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"

namespace kprof {
namespace {

template <typename Row>
using ValueOf = typename std::remove_cvref_t<Row>::Value;

// The row whose value is of type V (the enumerations: one row each) gets f(row).
template <typename V, typename F>
void with_row_of(F&& f) {
  for_each_row(kOptionTable, [&](const auto& row) {
    if constexpr (std::is_same_v<ValueOf<decltype(row)>, V>) f(row);
  });
}

template <typename E>
E parse_enum(std::string_view text) {
  E out{};
  with_row_of<E>([&](const auto& row) { out = parse_choice(row.rule.choices, row.name, text); });
  return out;
}

template <typename E>
std::string enum_name(E value) {
  std::string out = "?";
  with_row_of<E>([&](const auto& row) { out = name_of(row.rule.choices, value); });
  return out;
}

// --- text forms --------------------------------------------------------------------------

template <typename T>
std::optional<T> number_of(std::string_view text) {
  if constexpr (std::is_floating_point_v<T>) {
    return detail::parse_double(text);  // the core's one parser of a number's text
  } else {
    T v{};
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return v;
  }
}

// "a, b,c" -> {"a", "b", "c"}; blanks around names and empty items are dropped.
std::vector<std::string> split_names(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const std::size_t comma = std::min(text.find(','), text.size());
    std::string_view item = text.substr(0, comma);
    const std::size_t first = item.find_first_not_of(" \t");
    if (first != std::string_view::npos)
      out.emplace_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
    text.remove_prefix(std::min(comma + 1, text.size()));
  }
  return out;
}

// The value of `row` that `text` stands for; OptionError with the row's valid text otherwise.
template <typename Row>
ValueOf<Row> from_text(const Row& row, std::string_view text) {
  using V = ValueOf<Row>;
  if constexpr (std::is_same_v<V, int>) {
    if (auto v = number_of<int>(text)) return *v;
  } else if constexpr (std::is_same_v<V, RunsValue>) {
    if (text == "auto") return StoppingRule{};
    if (auto v = number_of<int>(text)) return *v;
  } else if constexpr (std::is_same_v<V, std::optional<int>>) {
    if (text == "none") return std::nullopt;
    if (auto v = number_of<int>(text)) return *v;
  } else if constexpr (std::is_same_v<V, double>) {
    if (auto v = number_of<double>(text)) return *v;
  } else if constexpr (std::is_same_v<V, bool>) {
    if (text == "true" || text == "false") return text == "true";
  } else if constexpr (std::is_enum_v<V>) {
    return parse_choice(row.rule.choices, row.name, text);
  } else if constexpr (std::is_same_v<V, CombineValue>) {
    return CombineValue{parse_choice(row.rule.names, row.name, text), nullptr};
  } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
    return split_names(text);
  } else if constexpr (std::is_same_v<V, std::string>) {
    return std::string(text);
  }
  // Functions and collectors have no text form.
  throw OptionError(std::string(row.name), "'" + std::string(text) + "'",
                    std::string(row.rule.valid));
}

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// How `value` of `row` reads in a description of the options.
template <typename Row>
std::string text_of(const Row& row, const ValueOf<Row>& value) {
  using V = ValueOf<Row>;
  if constexpr (std::is_same_v<V, int>) {
    return std::to_string(value);
  } else if constexpr (std::is_same_v<V, RunsValue>) {
    if (const int* runs = std::get_if<int>(&value)) return std::to_string(*runs);
    const auto& r = std::get<StoppingRule>(value);
    return "'auto' (95% interval within " + short_number(r.rel_half_width) + " of the mean, " +
           std::to_string(r.min_runs) + ".." + std::to_string(r.max_runs) + " runs)";
  } else if constexpr (std::is_same_v<V, std::optional<int>>) {
    return value ? std::to_string(*value) : "None";
  } else if constexpr (std::is_same_v<V, double>) {
    return short_number(value);
  } else if constexpr (std::is_same_v<V, bool>) {
    return value ? "True" : "False";
  } else if constexpr (std::is_enum_v<V>) {
    if (row.rule.numbered) return std::to_string(static_cast<int>(value));
    return in_quotes(name_of(row.rule.choices, value));
  } else if constexpr (std::is_same_v<V, CombineValue>) {
    return in_quotes(to_string(value.kind));
  } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
    std::string out;
    for (const auto& s : value) out += (out.empty() ? "" : ", ") + in_quotes(s);
    return "[" + out + "]";
  } else if constexpr (std::is_same_v<V, std::string>) {
    return in_quotes(value);
  } else if constexpr (std::is_same_v<V, DeriveFn>) {
    return value ? "<function>" : "None";
  } else {
    std::string out;
    for (const InfoCollector& c : value)
      out += (out.empty() ? "(" : ", (") + in_quotes(c.name) + ", " +
             in_quotes(to_string(c.scope)) + ")";
    return "[" + out + "]";
  }
}

}  // namespace

RunsValue RunsField::get(const Options& o) {
  if (o.stopping) return *o.stopping;
  return o.runs;
}

void RunsField::set(Options& o, RunsValue v) {
  if (const int* runs = std::get_if<int>(&v)) {
    o.runs = *runs;
    o.stopping.reset();
  } else {
    o.stopping = std::get<StoppingRule>(v);
  }
}

CombineValue CombineField::get(const Options& o) { return {o.combine, o.combine_fn}; }

void CombineField::set(Options& o, CombineValue v) {
  o.combine = v.kind;
  o.combine_fn = std::move(v.fn);
}

CacheControl parse_cache_control(std::string_view v) { return parse_enum<CacheControl>(v); }
ClockControl parse_clock_control(std::string_view v) { return parse_enum<ClockControl>(v); }
ReplayMode parse_replay_mode(std::string_view v) { return parse_enum<ReplayMode>(v); }
ThermalMode parse_thermal_mode(std::string_view v) { return parse_enum<ThermalMode>(v); }
Verbosity parse_verbosity(std::string_view v) { return parse_enum<Verbosity>(v); }

CombineKind parse_combine(std::string_view v) {
  CombineKind out{};
  with_row_of<CombineValue>(
      [&](const auto& row) { out = parse_choice(row.rule.names, row.name, v); });
  return out;
}

CollectionScope parse_collection_scope(std::string_view v) {
  return parse_choice<CollectionScope>(kCollectionScopeNames, "scope", v);
}

std::string to_string(CacheControl v) { return enum_name(v); }
std::string to_string(ClockControl v) { return enum_name(v); }
std::string to_string(ReplayMode v) { return enum_name(v); }
std::string to_string(ThermalMode v) { return enum_name(v); }
std::string to_string(Verbosity v) { return enum_name(v); }

std::string to_string(CombineKind v) {
  if (v == CombineKind::none) return "none";
  if (v == CombineKind::custom) return "custom";
  return std::string(name_of<CombineKind>(kCombineNames, v));
}

std::string to_string(CollectionScope v) {
  return std::string(name_of<CollectionScope>(kCollectionScopeNames, v));
}

void set_option(Options& options, std::string_view name, std::string_view text) {
  bool found = false;
  std::vector<std::string> names;
  for_each_row(kOptionTable, [&](const auto& row) {
    names.emplace_back(row.name);
    if (row.name != name) return;
    row.access.set(options, from_text(row, text));
    found = true;
  });
  if (!found) throw OptionError("option", in_quotes(name), join_choices(names));
}

std::string to_string(const Options& options) {
  std::string out;
  for_each_row(kOptionTable, [&](const auto& row) {
    out += (out.empty() ? "" : ", ") + std::string(row.name) + "=" +
           text_of(row, row.access.get(options));
  });
  return out;
}

// nsight-python's convention: a prefix, not a folder.
std::string make_output_prefix(const Options& options) {
  if (options.output_prefix.empty()) {
    std::string templ = (std::filesystem::temp_directory_path() / "kprof_XXXXXX").string();
    if (!mkdtemp(templ.data())) throw Error("cannot create a temporary folder for output_csv");
    return templ + "/";
  }
  const auto parent = std::filesystem::path(options.output_prefix).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec)
    throw OptionError("output_prefix", "'" + options.output_prefix + "'",
                      "a path prefix whose folder can be made (making '" + parent.string() +
                          "' failed: " + ec.message() + ")");
  return options.output_prefix;
}

}  // namespace kprof
