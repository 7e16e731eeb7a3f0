// `kprof report FILE`: a saved result in the terminal, with where and how it was measured.
#include <cstddef>
#include <ostream>
#include <set>
#include <string>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "kprof/analysis.hpp"
#include "kprof/errors.hpp"
#include "kprof/merge.hpp"
#include "kprof/metrics.hpp"
#include "kprof/stalls.hpp"

namespace kprof::cli {

std::vector<std::vector<std::string>> session_context(const SessionInfo& s) {
  std::vector<std::vector<std::string>> rows;
  for (const ContextRow& row : context_rows(s))
    if (row.brief) rows.push_back({row.label, row.text});
  return rows;
}

namespace {

// How many of set:analysis's metrics `results` lack, as analyze() counts them: range replay
// cannot measure launch statistics, so it is not asked for them.
std::size_t analysis_metrics_lacking(const Results& results) {
  std::set<std::string> measured;
  for (const Row& row : results.rows()) measured.insert(row.metric);
  const bool range = whole_regions(results.session().replay_mode);
  std::size_t lacking = 0;
  for (const std::string& m : analysis_metrics())
    if (!measured.count(m) && !(range && metrics::is_launch_metric(m))) ++lacking;
  return lacking;
}

}  // namespace

std::string explanation(const std::string& flag, const Results& results) {
  try {
    return analysis_text(analyze(results));
  } catch (const OptionError& e) {
    // Most often a profile of something else: say which set to ask for, and how.
    if (const std::size_t lacking = analysis_metrics_lacking(results); lacking > 0)
      throw UsageError(flag + ": these results lack set:analysis's metrics (" +
                       std::to_string(lacking) + " of its " +
                       std::to_string(analysis_metrics().size()) +
                       "); profile with metrics=[\"set:analysis\"] (or `kprof demo --explain`)");
    throw UsageError(flag + ": " + e.what());
  }
}

// What `flag` (--stalls, --source) shows of `results`; a file that sampled no warps is a wrong
// command line.
template <class Text>
static std::string sampled(const std::string& flag, Text text) {
  try {
    return text();
  } catch (const OptionError& e) {
    throw UsageError(flag + ": " + e.what());
  }
}

int command_report(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  const std::string& path = args.positionals().at(0);
  const Results results = read_results_arg("FILE", path);
  // Checked before anything is printed: a file without set:analysis is a wrong command line.
  const std::string explained = args.has("--explain") ? explanation("--explain", results) : "";
  const std::string stalled =
      args.has("--stalls") ? sampled("--stalls", [&] { return stalls_text(stall_shares(results)); })
                           : "";
  const std::string hottest =
      args.has("--source")
          ? sampled("--source", [&] { return source_text(instruction_shares(results)); })
          : "";
  std::vector<std::vector<std::string>> context = session_context(results.session());
  context.insert(context.begin(), {"file", path});
  if (const std::string merged = parts_note(results); !merged.empty())
    context.insert(context.begin() + 1, {"merged", merged});
  print_columns(out, context);
  out << "\n" << results.table();
  if (const std::string slowest = imbalance_text(results); !slowest.empty())
    out << "\nimbalance between ranks:\n" << slowest;
  if (!explained.empty()) out << "\n" << explained;
  if (!stalled.empty()) out << "\n" << stalled;
  if (!hottest.empty()) out << "\n" << hottest;
  return kExitOk;
}

}  // namespace kprof::cli
