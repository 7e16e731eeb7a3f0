// Command-line parsing shared by the commands.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "kprof/errors.hpp"

namespace kprof::cli {

namespace {

std::string valid_options(const std::vector<OptionSpec>& specs) {
  std::string out;
  for (const OptionSpec& s : specs) {
    out += s.name + (s.value_name.empty() ? "" : " " + s.value_name) + ", ";
  }
  return out + "--help";
}

// "BASE NEW"
std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

}  // namespace

std::optional<std::string> ParsedArgs::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string flag_of(std::string_view option) {
  std::string flag = "--" + std::string(option);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string option_choices(std::string_view option) {
  std::vector<std::string> names;
  const Options defaults;
  for_each_row(kOptionTable, [&](const auto& row) {
    if constexpr (requires { row.rule.choices; }) {
      if (row.name != option) return;
      const auto current = row.access.get(defaults);
      for (const auto& c : row.rule.choices)
        names.push_back(std::string(c.name) + (c.value == current ? " (default)" : ""));
    }
  });
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

std::string one_line(const std::string& message) {
  std::string out;
  std::size_t begin = 0;
  while (begin <= message.size()) {
    std::size_t end = message.find('\n', begin);
    if (end == std::string::npos) end = message.size();
    std::size_t first = begin, last = end;
    while (first < last && std::isspace(static_cast<unsigned char>(message[first]))) ++first;
    while (last > first && std::isspace(static_cast<unsigned char>(message[last - 1]))) --last;
    if (first < last) {
      // Lines join with "; " unless the previous one already ends a clause.
      if (!out.empty()) out += (out.back() == ':' || out.back() == ';') ? " " : "; ";
      out.append(message, first, last - first);
    }
    begin = end + 1;
  }
  return out;
}

ParsedArgs parse_args(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs,
                      const std::vector<std::string>& positionals) {
  ParsedArgs parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      parsed.set("--help", "");
      continue;
    }
    if (arg.rfind("-", 0) != 0 || arg == "-") {
      // A last argument named "FILE..." takes every further one.
      const bool more = !positionals.empty() && positionals.back().ends_with("...");
      if (parsed.positionals().size() < positionals.size() || more) {
        parsed.add_positional(arg);
        continue;
      }
      throw UsageError("unexpected argument '" + arg + "'; " +
                       (positionals.empty() ? "valid options: " + valid_options(specs)
                                            : "expected " + join_names(positionals)));
    }
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const auto spec = std::find_if(specs.begin(), specs.end(),
                                   [&](const OptionSpec& s) { return s.name == name; });
    if (spec == specs.end()) {
      std::vector<std::string> names;
      for (const OptionSpec& s : specs) names.push_back(s.name);
      const std::string near = closest_choice(name, names);
      throw UsageError("unknown option '" + name + "'" +
                       (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                       "; valid options: " + valid_options(specs));
    }
    if (parsed.has(name)) throw UsageError("option " + name + " given twice");
    if (spec->value_name.empty()) {
      if (eq != std::string::npos) throw UsageError("option " + name + " takes no value");
      parsed.set(name, "");
    } else if (eq != std::string::npos) {
      parsed.set(name, arg.substr(eq + 1));
    } else if (i + 1 < args.size()) {
      parsed.set(name, args[++i]);
    } else {
      throw UsageError("option " + name + " needs a value (" + spec->name + " " + spec->value_name +
                       ")");
    }
    if (!spec->value_name.empty() && parsed.get(name)->empty()) {
      throw UsageError("option " + name + " needs a non-empty value (" + spec->name + " " +
                       spec->value_name + ")");
    }
  }
  // Not with --help: help needs no file.
  if (parsed.has("--help")) return parsed;
  const std::size_t given = parsed.positionals().size();
  if (given < positionals.size())
    throw UsageError("missing argument " + positionals[given] + " (expected " +
                     join_names(positionals) + ")");
  for (const OptionSpec& s : specs)
    if (s.required && !parsed.has(s.name))
      throw UsageError("missing " + s.name + " " + s.value_name + " (required): " + s.help);
  return parsed;
}

void refuse_together(const ParsedArgs& args, const std::string& option,
                     const std::vector<std::string>& others, const std::string& why) {
  if (!args.has(option)) return;
  for (const std::string& other : others)
    if (args.has(other))
      throw UsageError(option + " and " + other + " cannot be given together: " + why);
}

int parse_positive_int(const std::string& option, const std::string& value, int max) {
  int parsed = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, parsed);
  if (ec != std::errc() || ptr != end || parsed < 1 || parsed > max) {
    throw UsageError(option + "=" + value + " is not valid; valid: an integer from 1 to " +
                     std::to_string(max));
  }
  return parsed;
}

double parse_number(const std::string& option, const std::string& value) {
  // strtod, as libc++ has no floating-point std::from_chars; what from_chars would refuse
  // (blanks, a sign '+', hexadecimal) is refused here too.
  const bool plain = !value.empty() && value.find_first_of(" \t\n+xX") == std::string::npos;
  char* end = nullptr;
  const double parsed = plain ? std::strtod(value.c_str(), &end) : 0;
  if (!plain || end != value.c_str() + value.size() || !std::isfinite(parsed)) {
    throw UsageError(option + "=" + value + " is not valid; valid: a number");
  }
  return parsed;
}

}  // namespace kprof::cli
