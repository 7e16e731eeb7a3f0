// `kprof report FILE`: a saved result in the terminal, with where and how it was measured.
#include <charconv>
#include <ostream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "kprof/errors.hpp"

namespace kprof::cli {

namespace {

// SessionInfo stores the CUPTI version as CUPTI's number ("130001"); people read "13.0.1".
std::string cupti_text(const std::string& version) {
  int number = 0;
  const char* end = version.data() + version.size();
  const auto [ptr, ec] = std::from_chars(version.data(), end, number);
  return ec == std::errc() && ptr == end ? format_cupti_version(number) : version;
}

std::string gpu_text(const SessionInfo& s) {
  std::string text = s.gpu;
  if (s.device >= 0) text += " (device " + std::to_string(s.device) + ")";
  if (s.compute_clock_khz > 0 || s.memory_clock_khz > 0)
    text += ", rated clocks: SM " + format_clock(s.compute_clock_khz) + ", memory " +
            format_clock(s.memory_clock_khz);
  return text;
}

std::string backend_text(const SessionInfo& s) {
  std::string text = s.backend;
  if (!s.replay_mode.empty())
    text += " (replay " + s.replay_mode + ", " + std::to_string(s.passes) +
            (s.passes == 1 ? " pass)" : " passes)");
  return text;
}

std::string versions_text(const SessionInfo& s) {
  std::string text;
  const auto add = [&](const std::string& name, const std::string& version) {
    if (!version.empty()) text += (text.empty() ? "" : ", ") + name + " " + version;
  };
  add("kprof", s.kprof_version);
  add("CUDA driver", s.cuda_driver_version);
  add("CUDA runtime", s.cuda_runtime_version);
  add("CUPTI", s.cupti_version.empty() ? "" : cupti_text(s.cupti_version));
  return text;
}

}  // namespace

Results read_results_arg(const std::string& what, const std::string& path) {
  try {
    return Results::read_json(path);
  } catch (const FormatError& e) {
    throw UsageError("cannot read " + what + ": " + e.what());
  }
}

std::vector<std::vector<std::string>> session_context(const SessionInfo& s) {
  const std::vector<std::vector<std::string>> facts = {
      {"GPU", s.gpu.empty() ? "" : gpu_text(s)},
      {"host", s.host},
      {"date", s.started_at},
      {"backend", s.backend.empty() ? "" : backend_text(s)},
      {"cache control", s.cache_control},
      {"clock control", s.clock_control},
      {"runs", s.runs > 0 ? std::to_string(s.runs) + " per config" : ""},
      {"versions", versions_text(s)},
  };
  std::vector<std::vector<std::string>> known;
  for (const auto& f : facts)
    if (!f[1].empty()) known.push_back(f);
  return known;
}

int command_report(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  // Plots and HTML are drawn by the Python package (kprof.report), which intercepts these
  // options before the command reaches C++; this executable has no plotting library.
  if (args.has("--plot") || args.has("--html")) {
    err << "kprof report: --plot/--html need the Python package: run `python3 -m kprof.cli "
           "report ...`\n";
    return kExitUsage;
  }
  const std::string& path = args.positionals().at(0);
  const Results results = read_results_arg("FILE", path);
  std::vector<std::vector<std::string>> context = session_context(results.session());
  context.insert(context.begin(), {"file", path});
  print_columns(out, context);
  out << "\n" << results.table();
  return kExitOk;
}

}  // namespace kprof::cli
