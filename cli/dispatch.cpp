// `kprof <command>`: usage, dispatch, and the one place where errors become messages and exit
// codes.
#include <algorithm>
#include <exception>
#include <iostream>
#include <ostream>
#include <utility>
#include <vector>

#include "cli/cli.hpp"
#include "cli/command_metrics.hpp"
#include "cli/commands.hpp"
#include "kprof/errors.hpp"
#include "kprof/version.hpp"

namespace kprof::cli {

namespace {

struct Command {
  std::string name;
  std::string summary;      // one line, for the command list
  std::string description;  // paragraphs, for `kprof help <command>`
  std::vector<OptionSpec> options;
  int (*run)(const ParsedArgs&, std::ostream& out, std::ostream& err);
  std::vector<std::string> arguments = {};  // required arguments besides options ("FILE")
};

// The commands that look at this machine and its GPU.
std::vector<Command> machine_commands() {
  return {
      {"devices",
       "list the GPUs, driver, CUDA runtime, CUPTI and counter permission",
       "Lists every GPU the CUDA driver shows (ordinal, name, compute capability, SMs, memory,\n"
       "L2, rated clocks, PCI bus id), the CUDA version the driver supports, the CUDA runtime\n"
       "kprof was built with, the CUPTI version and whether this process may read hardware\n"
       "counters. On a machine without a driver it says so and lists 0 GPUs.\n"
       "Exit code 0 when the query worked, even with 0 GPUs.",
       {},
       command_devices},
      {"doctor",
       "check what works on this machine, and why not",
       "Checks, one line each (ok, FAIL or skip, with the reason): kprof built with CUDA, the\n"
       "NVIDIA driver loads, a GPU is visible, CUDA runtime and driver versions fit, CUPTI\n"
       "loads, the timing path works (a one-run profile of a 10 us kernel, with its measured\n"
       "duration; names the tool that holds CUPTI when another one does), counter permission\n"
       "and NVTX.\n"
       "Exit code 0 when kprof can time kernels here, 1 otherwise.",
       {},
       command_doctor},
      {"demo",
       "profile kprof's built-in kernels and print the results table",
       "Profiles the kernels that ship with kprof on the current GPU (CUDA_VISIBLE_DEVICES\n"
       "picks it): \"scale\" (8 bytes per element) and \"add\" (12 bytes per element) over\n"
       "n = 2^20, 2^22, 2^24 and 2^26 floats, and \"fma\" (compute bound, 2^22 threads of 1024\n"
       "dependent FMAs), with a cold L2 before every kernel. Prints the table of durations and\n"
       "achieved bandwidth (GB/s, a derived metric) and the peak bandwidth seen.\n"
       "Exit code 0 when the profile ran, 2 without a usable GPU, 1 when it failed.",
       {{"--runs", "N", "runs per configuration (default 10)"},
        {"--csv", "PREFIX",
         "also write PREFIX{profiled_data,processed_data,records,session,configs,runs}-demo.csv"},
        {"--json", "PATH", "also write everything measured to one JSON file"},
        {"--metrics", "LIST",
         "hardware counters to measure too, comma-separated names or sets (set:memory); "
         "`kprof metrics --sets` lists the sets"},
        {"--replay-mode", "MODE",
         "with --metrics: " + option_choices("replay_mode") + " (docs/metrics.md)"},
        {"--explain", "",
         "also measure set:analysis and say what limits each kernel (docs/analysis.md)"},
        {"--force", "", "replace the files of --csv and --json if they exist"}},
       command_demo},
      {"metrics",
       "the hardware counters of a chip: search, describe, metric sets, pass counts (no GPU "
       "needed)",
       "Lists the metrics CUPTI's Profiler Host API knows for a chip, computed on the CPU: no\n"
       "GPU or driver needed when --chip names the chip (GH100 for H100 and H200); without\n"
       "--chip the chip is the current GPU's. --search finds base metrics by part of their name\n"
       "(or '*' and '?' patterns; full names when the text has a suffix), --describe shows the\n"
       "type, unit, description, passes and suffixes of one, --passes counts the passes a\n"
       "comma-separated list needs together, --sets shows kprof's metric sets (set:NAME in a\n"
       "metric list) and --chips the supported chips. Without any of them: a summary.\n"
       "Exit code 0 when the query worked, 2 for an unknown chip or metric, or no chip.",
       {{"--chip", "NAME", "the chip, as CUPTI names it (GH100); default: the current GPU's"},
        {"--chips", "", "list the chips this CUPTI supports"},
        {"--search", "TEXT", "base metrics (or names) containing TEXT; '*' and '?' match any"},
        {"--describe", "NAME", "type, unit, description, passes and suffixes of one metric"},
        {"--sets", "", "kprof's metric sets, with their pass counts on the chip"},
        {"--passes", "A,B,...", "passes needed to collect these metrics (or set:NAME) together"}},
       command_metrics},
  };
}

// The commands that read saved results.
std::vector<Command> results_commands() {
  return {
      {"report",
       "print a saved result: where and how it was measured, and its table",
       "Reads a results file (JSON, as written by ProfileResults.save, Results::write_json or\n"
       "`kprof demo --json`) and prints where, when and how it was measured (GPU, host, date,\n"
       "backend, cache and clock control, runs, versions), then the results table with values\n"
       "scaled to readable units. --explain adds what limits each region (Nsight Compute's\n"
       "Speed-of-Light verdict, occupancy, the roofline and advice) for results that measured\n"
       "set:analysis; --stalls why each region's warps waited (the share of each stall\n"
       "reason) and --source where (each region's hottest instructions and source lines) for\n"
       "results that sampled warps (set:source). --plot, --html, --roofline and\n"
       "--metric are the Python package's: `python3 -m kprof.cli report FILE --plot out.png`.\n"
       "Exit code 0 when the file was read, 2 when it cannot be read, lacks what --explain,\n"
       "--stalls or --source needs, or the command line is wrong.",
       {{"--explain", "", "say what limits each region (results of set:analysis)"},
        {"--stalls", "", "say why each region's warps waited (results of set:source)"},
        {"--source", "", "show where each region's warps waited: its hottest source lines"},
        {"--plot", "PATH", "draw the results to an image (png, svg, pdf)", false, true},
        {"--html", "PATH", "write a self-contained HTML report", false, true},
        {"--roofline", "PATH", "draw the roofline of set:analysis results", false, true},
        {"--metric", "NAME[,NAME...]", "only these metrics in --plot and --html", false, true},
        {"--force", "", "let --plot, --html and --roofline replace a file that exists"}},
       command_report,
       {"FILE"}},
      {"compare",
       "compare two saved results: faster, slower or the same, with a significance test",
       "Matches the rows of BASE and NEW by annotation, metric, config (by parameter values,\n"
       "not position) and kernel index. For each row in both: the two means, the change in %,\n"
       "whether the 95% intervals overlap, the p-value of a two-sided Mann-Whitney U test over\n"
       "the per-run values (exact while a side has at most 8 runs, normal approximation with\n"
       "tie and continuity correction otherwise) and a verdict. A change counts when p < alpha\n"
       "and |change| >= threshold: faster or slower for times, higher or lower for other\n"
       "metrics. Fewer than 3 runs on a side, or too few for any p to reach alpha, is \"not\n"
       "enough runs\". Rows found in one file only are listed. Warns when the files were\n"
       "measured on different GPUs or with different backends, cache, clock or replay modes.\n"
       "Exit code 0 when nothing got slower, 1 when something did, 2 for a wrong command line,\n"
       "a file that cannot be read, or files with no row to compare (none in both, or those\n"
       "in both in units that do not convert or normalized differently). With --source (results\n"
       "of set:source), then, per region sampled in both, each source line's share of the\n"
       "region's warp samples in BASE and NEW and the stall reasons whose share changed most.",
       {{"--threshold", "PCT", "smallest change of the mean that counts, in % (default 2)"},
        {"--alpha", "A", "significance level of the test (default 0.05)"},
        {"--metric", "NAME", "only this metric; several: comma-separated"},
        {"--source", "", "also compare where the warps waited, line by line (set:source)"}},
       command_compare,
       {"BASE", "NEW"}},
      {"export",
       "write a saved result in another tool's format (Google Benchmark's JSON, a trace)",
       "Reads a results file and writes it as Google Benchmark's JSON (--benchmark_format=json):\n"
       "a benchmark per annotation and config, a repetition per run, the mean, median and\n"
       "stddev aggregates, the duration as real_time and cpu_time in --time-unit, every other\n"
       "metric as a counter; Google Benchmark's tools/compare.py reads it. To standard output,\n"
       "or to --out PATH. With --trace OUT.json it writes a Chrome trace instead (Perfetto,\n"
       "chrome://tracing): the kernels at their GPU times on a track per stream, the\n"
       "annotations, configs and runs around them (not with --out, --format or --time-unit).\n"
       "An existing PATH is replaced only with --force.\n"
       "Exit code 0 when written, 1 when PATH cannot be written, 2 for a file that cannot be\n"
       "read or exported (normalized results, no durations, no GPU timestamps for a trace), an\n"
       "existing PATH without --force, or a wrong line.",
       {{"--format", "NAME", "the format: google-benchmark"},
        {"--time-unit", "UNIT", "ns (default), us, ms or s"},
        {"--out", "PATH", "write here instead of standard output"},
        {"--trace", "PATH", "write a Chrome trace of the kernels to PATH instead"},
        {"--force", "", "replace the file of --out or --trace if it exists"}},
       command_export,
       {"FILE"}},
      {"merge",
       "merge the saved results of several ranks or GPUs into one file",
       "Reads results saved by several processes (the ranks of a job, or runs on several\n"
       "GPUs) and writes them as one JSON file, in the order given: every row keeps the Rank,\n"
       "Host and Device it was measured on, and statistics stay per rank. Prints what was\n"
       "merged and, where ranks measured the same region and config, the slowest and the\n"
       "fastest rank. The files must come from sweeps of the same parameters, measured the\n"
       "same way (backend, units), each process once. An existing PATH is replaced only with\n"
       "--force, and never when it is one of the FILEs.\n"
       "Exit code 0 when the file was written, 2 for a file that cannot be read or merged or\n"
       "an output that cannot be replaced, 1 when the output cannot be written.",
       {{"--out", "PATH", "the merged file to write (not one of the FILEs)", true},
        {"--force", "", "replace PATH if it exists"}},
       command_merge,
       {"FILE", "FILE..."}},
  };
}

const std::vector<Command>& commands() {
  static const std::vector<Command> table = [] {
    std::vector<Command> all = machine_commands();
    for (Command& c : results_commands()) all.push_back(std::move(c));
    return all;
  }();
  return table;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const Command& c : commands()) names.push_back(c.name);
  names.push_back("help");
  return names;
}

std::string synopsis(const Command& c) {
  std::string s = "kprof " + c.name;
  for (const std::string& a : c.arguments) s += " " + a;
  for (const OptionSpec& o : c.options) {
    const std::string option = o.name + (o.value_name.empty() ? "" : " " + o.value_name);
    s += o.required ? " " + option : " [" + option + "]";
  }
  return s;
}

void print_usage(std::ostream& out) {
  out << "usage: kprof <command> [options]\n"
         "\n"
         "kprof profiles GPU kernels from inside the program that launches them.\n"
         "\n"
         "commands:\n";
  std::vector<std::vector<std::string>> rows;
  for (const Command& c : commands()) rows.push_back({c.name, c.summary});
  rows.push_back({"help", "show this text; `kprof help <command>` shows one command"});
  print_columns(out, rows, "  ");
  out << "\n"
         "options:\n";
  print_columns(out, {{"-h, --help", "show this text"}, {"--version", "print kprof's version"}},
                "  ");
}

void print_command_help(const Command& c, std::ostream& out) {
  out << "usage: " << synopsis(c) << "\n\n" << c.description << "\n\noptions:\n";
  std::vector<std::vector<std::string>> rows;
  for (const OptionSpec& o : c.options)
    rows.push_back({o.name + (o.value_name.empty() ? "" : " " + o.value_name),
                    o.help + (o.python_only ? " (Python package only)" : "")});
  rows.push_back({"-h, --help", "show this text"});
  print_columns(out, rows, "  ");
}

const Command* find_command(const std::string& name) {
  const auto& table = commands();
  const auto it =
      std::find_if(table.begin(), table.end(), [&](const Command& c) { return c.name == name; });
  return it == table.end() ? nullptr : &*it;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

int unknown_command(const std::string& name, std::ostream& err) {
  const std::string near = closest_choice(name, command_names());
  err << "kprof: unknown command '" << name << "'"
      << (near.empty() ? "" : " (did you mean '" + near + "'?)")
      << "; valid commands: " << join(command_names()) << "\n"
      << "run 'kprof help' for usage\n";
  return kExitUsage;
}

int run_command(const Command& c, const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  const std::string prefix = "kprof " + c.name + ": ";
  try {
    const ParsedArgs parsed = parse_args(args, c.options, c.arguments);
    if (parsed.has("--help")) {
      print_command_help(c, out);
      return kExitOk;
    }
    // kprof.cli hands these to Python before they reach C++: this is the executable alone.
    std::vector<std::string> python_only;
    for (const OptionSpec& o : c.options)
      if (o.python_only && parsed.has(o.name)) python_only.push_back(o.name);
    if (!python_only.empty()) {
      std::string names;
      for (std::size_t i = 0; i < python_only.size(); ++i)
        names += (i == 0 ? "" : i + 1 == python_only.size() ? " and " : ", ") + python_only[i];
      err << prefix << names << (python_only.size() == 1 ? " needs" : " need")
          << " the Python package: run `python3 -m kprof.cli " << c.name << " ...`\n";
      return kExitUsage;
    }
    return c.run(parsed, out, err);
  } catch (const UsageError& e) {
    err << prefix << one_line(e.what()) << "\n"
        << "usage: " << synopsis(c) << "\n";
    return kExitUsage;
  } catch (const NoGpuError& e) {
    err << prefix << "no GPU available: " << strip_no_gpu_prefix(e.what()) << "\n";
    return kExitUsage;
  } catch (const CuptiBusyError& e) {
    err << prefix << cupti_busy_message(e.what(), e.holder()) << "\n";
    return kExitFailure;
  } catch (const Error& e) {
    err << prefix << one_line(e.what()) << "\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    err << prefix << "internal error: " << one_line(e.what()) << "\n";
    return kExitFailure;
  } catch (...) {
    err << prefix << "internal error: unknown exception\n";
    return kExitFailure;
  }
}

}  // namespace

std::vector<OptionSpec> command_options(const std::string& command) {
  const Command* c = find_command(command);
  return c == nullptr ? std::vector<OptionSpec>{} : c->options;
}

std::string command_synopsis(const std::string& command) {
  const Command* c = find_command(command);
  return c == nullptr ? std::string() : synopsis(*c);
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    print_usage(out);
    return kExitOk;
  }
  const std::string& first = args[0];
  if (first == "--version") {
    out << "kprof " << version() << "\n";
    return kExitOk;
  }
  if (first == "help" || first == "-h" || first == "--help") {
    if (args.size() == 1) {
      print_usage(out);
      return kExitOk;
    }
    if (args.size() > 2) {
      err << "kprof help: expected at most one command, got " << args.size() - 1 << "\n";
      return kExitUsage;
    }
    if (const Command* c = find_command(args[1])) {
      print_command_help(*c, out);
      return kExitOk;
    }
    // `kprof help --help` and `kprof help help` ask for help about help: the usage says it.
    if (args[1] == "help" || args[1] == "--help" || args[1] == "-h") {
      print_usage(out);
      return kExitOk;
    }
    return unknown_command(args[1], err);
  }
  if (first.rfind("-", 0) == 0) {
    err << "kprof: unknown option '" << first << "'; valid options before a command: --help, "
        << "--version\nrun 'kprof help' for usage\n";
    return kExitUsage;
  }
  const Command* c = find_command(first);
  if (c == nullptr) return unknown_command(first, err);
  return run_command(*c, std::vector<std::string>(args.begin() + 1, args.end()), out, err);
}

int main(int argc, char** argv) {
  int code = kExitFailure;
  try {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
    code = run(args, std::cout, std::cerr);
  } catch (...) {
    // run() catches everything a command throws; this is for a failing stream or allocation.
    std::cerr << "kprof: internal error\n";
  }
  std::cout.flush();
  std::cerr.flush();
  return code;
}

}  // namespace kprof::cli
