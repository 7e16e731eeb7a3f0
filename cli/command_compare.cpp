// `kprof compare BASE NEW`: did NEW get faster or slower than BASE? The statistics live in the
// core (kprof::compare); this command reads the files, prints, and turns the verdicts into an
// exit code for CI.
#include <ostream>
#include <string>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "kprof/compare.hpp"
#include "kprof/errors.hpp"
#include "kprof/stalls.hpp"

namespace kprof::cli {

namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t comma; (comma = text.find(',', begin)) != std::string::npos; begin = comma + 1)
    parts.push_back(text.substr(begin, comma - begin));
  parts.push_back(text.substr(begin));
  return parts;
}

CompareOptions compare_options(const ParsedArgs& args) {
  CompareOptions o;
  if (const auto v = args.get("--threshold")) o.threshold_pct = parse_number("--threshold", *v);
  if (const auto v = args.get("--alpha")) o.alpha = parse_number("--alpha", *v);
  if (const auto v = args.get("--metric")) o.metrics = split_commas(*v);
  return o;
}

// The core names options as the C++ and Python APIs do ("threshold"); here they are flags.
[[noreturn]] void throw_as_usage(const OptionError& e) {
  throw UsageError("--" + e.option() + "=" + e.value() + " is not valid; valid: " + e.valid());
}

// "NVIDIA H200, cupti-activity, cache all, 2026-11-30T06:14:11Z"
std::string session_summary(const SessionInfo& s) {
  std::string text;
  for (const std::string& part :
       {s.gpu, s.backend, s.cache_control.empty() ? "" : "cache " + s.cache_control, s.started_at})
    if (!part.empty()) text += (text.empty() ? "" : ", ") + part;
  return text;
}

}  // namespace

int command_compare(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  const CompareOptions options = compare_options(args);
  const std::string& base_path = args.positionals().at(0);
  const std::string& new_path = args.positionals().at(1);
  const Results base = read_results_arg("BASE", base_path);
  const Results next = read_results_arg("NEW", new_path);
  Comparison comparison;
  try {
    comparison = compare(base, next, options);
  } catch (const OptionError& e) {
    throw_as_usage(e);
  } catch (const FormatError& e) {
    // Nothing was compared: exit 2, not the 0 of "nothing got slower" that a CI gate reads.
    err << "kprof compare: " << one_line(e.what()) << "\n";
    return kExitUsage;
  }
  std::string source;
  if (args.has("--source")) {
    try {
      source = source_comparison_text(compare_source(base, next));
    } catch (const OptionError& e) {  // a file without sampled instructions
      throw UsageError("--source needs results of set:source: " + e.value() +
                       "; valid: " + e.valid());
    } catch (const FormatError& e) {
      err << "kprof compare: --source: " << one_line(e.what()) << "\n";
      return kExitUsage;
    }
  }
  print_columns(out, {{"BASE", base_path, session_summary(base.session())},
                      {"NEW", new_path, session_summary(next.session())}});
  out << "\n" << comparison.table();
  if (!source.empty()) out << "\n" << source;
  return comparison.any_slower() ? kExitFailure : kExitOk;
}

}  // namespace kprof::cli
