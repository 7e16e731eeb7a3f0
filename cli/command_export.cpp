// `kprof export FILE --format google-benchmark` and `--trace OUT.json`: a saved result in
// another tool's format.
#include <optional>
#include <ostream>
#include <string>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "kprof/errors.hpp"
#include "kprof/export.hpp"

namespace kprof::cli {

namespace {

int export_trace(const Results& results, const std::string& path, std::ostream& out,
                 std::ostream& err) {
  try {
    write_chrome_trace(results, path);
  } catch (const FormatError& e) {
    throw UsageError(e.what());
  } catch (const Error& e) {  // the file could not be written
    err << "kprof export: " << e.what() << "\n";
    return kExitFailure;
  }
  out << "wrote " << path << " (open it in ui.perfetto.dev or chrome://tracing)\n";
  return kExitOk;
}

}  // namespace

int command_export(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  refuse_together(
      args, "--trace", {"--out", "--format", "--time-unit"},
      "--trace PATH writes a Chrome trace, the others Google Benchmark's JSON; give one");
  if (const std::optional<std::string> trace = args.get("--trace")) {
    check_output(args, "--trace", *trace);
    return export_trace(read_results_arg("FILE", args.positionals().at(0)), *trace, out, err);
  }
  const std::string format = args.get("--format").value_or("google-benchmark");
  if (format != "google-benchmark")
    throw UsageError("--format=" + format + " is not valid; valid: google-benchmark");
  const std::optional<std::string> path = args.get("--out");
  if (path) check_output(args, "--out", *path);
  const Results results = read_results_arg("FILE", args.positionals().at(0));
  const std::string unit = args.get("--time-unit").value_or("ns");
  try {
    if (!path) {
      out << to_google_benchmark_json(results, unit);
      return kExitOk;
    }
    write_google_benchmark_json(results, *path, unit);
  } catch (const OptionError& e) {
    throw UsageError(std::string("--time-unit: ") + e.what());
  } catch (const FormatError& e) {
    throw UsageError(e.what());
  } catch (const Error& e) {  // the file could not be written
    err << "kprof export: " << e.what() << "\n";
    return kExitFailure;
  }
  out << "wrote " << *path << "\n";
  return kExitOk;
}

}  // namespace kprof::cli
