// The machinery of the option table in kprof/options.hpp: rows (one option: its name, the field
// it sets, what is valid, one line of doc), the rules that say what is valid, and the loop over
// the rows. Adding an option needs nothing here; a new kind of rule or of field does.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kprof/errors.hpp"

namespace kprof {

struct Options;

// One value of an enumeration option and the name users write for it.
template <typename E>
struct Choice {
  E value;
  std::string_view name;
};

// The name of `value` among `choices`; "?" for a value that has none.
template <typename E>
std::string_view name_of(std::span<const Choice<E>> choices, E value) {
  for (const Choice<E>& c : choices)
    if (c.value == value) return c.name;
  return "?";
}

// The value named `name`; OptionError naming `option`, the name and the valid names otherwise.
template <typename E>
E parse_choice(std::span<const Choice<E>> choices, std::string_view option, std::string_view name) {
  std::vector<std::string> valid;
  for (const Choice<E>& c : choices) {
    if (c.name == name) return c.value;
    valid.emplace_back(c.name);
  }
  throw OptionError(std::string(option), "'" + std::string(name) + "'", join_choices(valid));
}

// Where an option can be given besides the C++ struct.
enum class Reach {
  everywhere,  // also a keyword of Python's analyze.kernel
  cpp,         // the C++ API only
};

// One option. `Access` reads and writes its value in Options (Field below, or a struct of its
// own when the option spans two fields); `Rule` says what is valid (kprof::rules).
template <typename Access, typename Rule>
struct OptionRow {
  using Value = typename Access::Value;
  std::string_view name;  // the keyword of analyze.kernel, and what OptionError names
  Access access;
  Rule rule;
  std::string_view doc;  // one line
  Reach reach = Reach::everywhere;
};

template <typename Access, typename Rule>
constexpr OptionRow<Access, Rule> option(std::string_view name, Access access, Rule rule,
                                         std::string_view doc, Reach reach = Reach::everywhere) {
  return {name, access, rule, doc, reach};
}

// The field reached by a chain of member pointers: Field<&Options::runs>,
// Field<&Options::thermal, &ThermalOptions::wait>.
template <auto... Members>
struct Field {
  template <typename O>
  static auto& ref(O& o) {
    return (o.*....*Members);
  }
  using Value = std::remove_cvref_t<decltype(ref(std::declval<Options&>()))>;
  static Value get(const Options& o) { return ref(o); }
  static void set(Options& o, Value v) { ref(o) = std::move(v); }
};

// Calls f(row) for every row of `table` (a tuple of OptionRow), in order.
template <typename Table, typename F>
constexpr void for_each_row(const Table& table, F&& f) {
  std::apply([&](const auto&... row) { (f(row), ...); }, table);
}

namespace rules {

// Each rule has `valid`, what OptionError says is valid for the option (the front ends say it
// too of a value of the wrong type), and check(option, value), which throws OptionError.
// Options::validate() calls every row's check; checks between options are in
// src/core/option_checks.cpp.

// Every value of the field's type.
struct Any {
  std::string_view valid;
  template <typename T>
  void check(std::string_view, const T&) const {}
};

// An integer >= min; an unset std::optional<int> is valid (its default applies).
struct AtLeast {
  int min;
  std::string_view valid;
  void check(std::string_view option, int value) const;
  void check(std::string_view option, const std::optional<int>& value) const;
};

// A number from lo to hi.
struct Between {
  double lo, hi;
  std::string_view valid;
  void check(std::string_view option, double value) const;
};

// A list of names, none of them empty.
struct Names {
  std::string_view noun;   // "kernel names": what the front ends say of a list of other things
  std::string_view valid;  // what is valid instead of an empty name
  void check(std::string_view option, const std::vector<std::string>& names) const;
};

// A name or nothing (an empty string in Options means nothing). The front ends reject an empty
// name, which would read as nothing.
struct NameOrNone {
  std::string_view valid;
  void check(std::string_view, const std::string&) const {}
};

// A path prefix, or nothing (empty: a fresh temporary folder, make_output_prefix()). Its folder
// may not exist yet, but what of it exists must be folders (checked without making any).
struct PathPrefix {
  std::string_view valid;
  void check(std::string_view option, const std::string& prefix) const;
};

// One of the names of an enumeration. With `numbered`, the front ends give the enumeration's
// number instead (verbosity: nsight-python's VerbosityLevel is an IntEnum).
template <typename E>
struct OneOf {
  std::span<const Choice<E>> choices;
  std::string_view valid = {};  // empty: the names, 'a', 'b' or 'c'
  bool numbered = false;
  void check(std::string_view, E) const {}
};

}  // namespace rules
}  // namespace kprof
