// `kprof report FILE`: a saved result in the terminal, with where and how it was measured.
#include <ostream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "kprof/analysis.hpp"
#include "kprof/errors.hpp"
#include "kprof/merge.hpp"

namespace kprof::cli {

Results read_results_arg(const std::string& what, const std::string& path) {
  try {
    return Results::read_json(path);
  } catch (const FormatError& e) {
    throw UsageError("cannot read " + what + ": " + e.what());
  }
}

std::vector<std::vector<std::string>> session_context(const SessionInfo& s) {
  std::vector<std::vector<std::string>> rows;
  for (const ContextRow& row : context_rows(s))
    if (row.brief) rows.push_back({row.label, row.text});
  return rows;
}

std::string explanation(const std::string& flag, const Results& results) {
  try {
    return analysis_text(analyze(results));
  } catch (const OptionError& e) {
    throw UsageError(flag + ": " + e.what());
  }
}

int command_report(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  // Plots and HTML are drawn by the Python package (kprof.report), which intercepts these
  // options before the command reaches C++; this executable has no plotting library.
  if (args.has("--plot") || args.has("--html") || args.has("--roofline")) {
    err << "kprof report: --plot/--html/--roofline need the Python package: run `python3 -m "
           "kprof.cli report ...`\n";
    return kExitUsage;
  }
  const std::string& path = args.positionals().at(0);
  const Results results = read_results_arg("FILE", path);
  // Checked before anything is printed: a file without set:analysis is a wrong command line.
  const std::string explained = args.has("--explain") ? explanation("--explain", results) : "";
  std::vector<std::vector<std::string>> context = session_context(results.session());
  context.insert(context.begin(), {"file", path});
  if (const std::string merged = parts_note(results); !merged.empty())
    context.insert(context.begin() + 1, {"merged", merged});
  print_columns(out, context);
  out << "\n" << results.table();
  if (const std::string slowest = imbalance_text(results); !slowest.empty())
    out << "\nimbalance between ranks:\n" << slowest;
  if (!explained.empty()) out << "\n" << explained;
  return kExitOk;
}

}  // namespace kprof::cli
