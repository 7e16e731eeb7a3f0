// Inside the `kprof` command line: argument parsing, the commands, and the pieces of each
// command that tests check without a GPU (formatting a SystemInfo, the doctor's verdicts, the
// demo's configurations and derived metric).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli.hpp"
#include "kprof/device.hpp"
#include "kprof/layout.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"

namespace kprof::cli {

// --- arguments -----------------------------------------------------------------------------

// A command line the command cannot accept. The dispatcher prints it after "kprof <command>: "
// with the command's synopsis, and exits with kExitUsage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Options given on the command line, by name ("--runs" -> "5"; flags map to "").
class ParsedArgs {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::optional<std::string> get(const std::string& name) const;
  void set(const std::string& name, std::string value) { values_[name] = std::move(value); }
  // The arguments that are not options (the files of `report` and `compare`), in order.
  const std::vector<std::string>& positionals() const { return positionals_; }
  void add_positional(std::string value) { positionals_.push_back(std::move(value)); }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positionals_;
};

// Parses `--name value`, `--name=value` and flags against `specs`; -h and --help are always
// accepted (as "--help"). `positionals` names the other arguments the command takes, all
// required ("BASE", "NEW"); a last name ending in "..." ("FILE...") takes one or more. Throws
// UsageError naming an unknown option (and the closest valid one), a missing value, a repeated
// option, a missing required option, a missing argument or a stray argument.
ParsedArgs parse_args(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs,
                      const std::vector<std::string>& positionals = {});

// A positive integer within [1, max]; UsageError naming the option otherwise.
int parse_positive_int(const std::string& option, const std::string& value, int max);

// A finite decimal number ("2", "0.5", "1e-3"); UsageError naming the option otherwise.
double parse_number(const std::string& option, const std::string& value);

// The command-line flag of an option of the table (kprof/options.hpp): "replay_mode" ->
// "--replay-mode".
std::string flag_of(std::string_view option);

// The names an option of the table takes, its default marked: "kernel (default), range or
// application". Empty for an option that is not one of names.
std::string option_choices(std::string_view option);

// Collapses a message onto one line (newlines become "; ").
std::string one_line(const std::string& message);

// Refuses options given together that exclude each other: `option`, when given, with any of
// `others` ("--trace and --out cannot be given together: <why>").
void refuse_together(const ParsedArgs& args, const std::string& option,
                     const std::vector<std::string>& others, const std::string& why);

// --- files the commands write --------------------------------------------------------------

// Every command that writes a file checks it first, before reading or measuring anything:
// `path` (given as `option`) must not be a folder, its folder must exist, and an existing file
// is replaced only with --force (UsageError "PATH exists; pass --force to replace it").
void check_output(const ParsedArgs& args, const std::string& option, const std::string& path);
// The same for each file Results::write_csv(prefix, tag) writes.
void check_csv_outputs(const ParsedArgs& args, const std::string& option, const std::string& prefix,
                       const std::string& tag);
// Refuses an output that is one of the files read (the same file, by whatever path), --force
// or not: it would be replaced by results that include it.
void check_not_an_input(const std::string& option, const std::string& path,
                        const std::vector<std::string>& inputs);

// --- formatting ----------------------------------------------------------------------------

// kprof/device.hpp's spelling of sizes, clocks and CUPTI versions.
using kprof::format_bytes;                  // "139.8 GiB", "60 MiB", "512 B"
using kprof::format_clock;                  // "1980 MHz"; "-" for 0
using kprof::format_cupti_version;          // "13.0.1" for 130001, "v28" for 28
std::string format_duration_ns(double ns);  // "10.4 us", "2.74 ms"
// Left-aligned columns separated by two spaces, one line per row, no trailing blanks.
void print_columns(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                   const std::string& indent = "");

// --- devices -------------------------------------------------------------------------------

// Reads an environment variable; tests pass their own.
using EnvFn = std::function<std::optional<std::string>(const std::string&)>;
std::optional<std::string> process_env(const std::string& name);

// Why there is no driver, in words ("no NVIDIA driver found (libcuda.so.1 could not be loaded)").
std::string driver_problem(const SystemInfo& sys);
// A NoGpuError's message without its "no GPU available: " start (kNoGpuAvailable) and final
// period, for a line that says it once.
std::string strip_no_gpu_prefix(const std::string& message);
// Why no GPU can be used; empty when sys has a driver and at least one device.
std::string no_gpu_reason(const SystemInfo& sys, const EnvFn& env = process_env);
void print_system(const SystemInfo& sys, std::ostream& out);

// --- doctor --------------------------------------------------------------------------------

enum class CheckStatus { ok, fail, skip };

struct Check {
  CheckStatus status = CheckStatus::skip;
  std::string name;
  std::string detail;  // why, or what was seen
};

// What the doctor's timing probe (a profile of one spin kernel) gave.
struct TimingOutcome {
  enum class Kind { measured, cupti_busy, no_gpu, error } kind = Kind::error;
  double requested_us = 0;
  double measured_us = 0;  // kind == measured
  std::string backend;     // kind == measured: SessionInfo::backend ("cupti-activity")
  std::string message;     // otherwise
  std::string holder;      // kind == cupti_busy: who holds CUPTI, as CUPTI names it
};

// The kernel length the probe asks for.
inline constexpr double kProbeSpinUs = 10.0;

// Runs the real probe: a 1-run profile of one spin kernel of kProbeSpinUs inside an
// Annotation. Never throws.
TimingOutcome run_timing_probe();

// What the doctor's counter probe (DRAM bytes of one kernel, from the range profiler) gave.
struct CounterOutcome {
  enum class Kind { measured, denied, error } kind = Kind::error;
  double expected_bytes = 0;  // what the kernel reads
  double read_bytes = 0;      // kind == measured
  std::string message;        // otherwise
};

// Runs the real counter probe: dram__bytes_read.sum of y = 2x over 1 Mi floats, 1 run.
// Never throws.
CounterOutcome run_counter_probe();

// A CuptiBusyError's message on one line, with the holder's name added when the message lacks it.
std::string cupti_busy_message(const std::string& message, const std::string& holder);

// The checklist for `sys`. `probe` runs only when a GPU is visible, `counter_probe` (when
// given) only when the process may read counters as far as can be told. `env` reads
// environment variables (NVTX_INJECTION64_PATH, CUDA_VISIBLE_DEVICES).
std::vector<Check> doctor_checks(const SystemInfo& sys, const std::function<TimingOutcome()>& probe,
                                 const EnvFn& env,
                                 const std::function<CounterOutcome()>& counter_probe = {});
// The name of the check whose status decides doctor's exit code.
inline constexpr const char* kTimingCheck = "timing";
// Prints the checklist and a verdict; returns the exit code (kExitOk when timing works).
int print_checks(const std::vector<Check>& checks, std::ostream& out);
const char* to_string(CheckStatus s);

// --- demo ----------------------------------------------------------------------------------

// The demo's metrics: the duration, then the comma-separated names or sets of --metrics.
std::vector<std::string> demo_metrics(const std::optional<std::string>& list);

struct DemoCase {
  std::string op;  // "scale", "add" or "fma": the annotation and the kernel
  std::int64_t n = 0;
};

inline constexpr int kDemoFmaIterations = 1024;
inline constexpr int kDemoDefaultRuns = 10;

// The demo's sweep, in order: scale and add over n = 2^20, 2^22, 2^24, 2^26 floats, then fma.
std::vector<DemoCase> demo_cases();
// Axes "op" and "n", one point per case.
Sweep demo_sweep(const std::vector<DemoCase>& cases);
// Bytes a kernel moves per element: scale 8, add 12, fma 0 (no memory traffic).
double demo_bytes_per_element(const std::string& op);
// Options::derive of the demo: achieved bandwidth in GB/s (bytes moved / duration in ns) for
// the memory kernels, nothing for fma. NaN when the duration is not a positive number.
std::vector<DerivedValue> demo_derive(const std::vector<DemoCase>& cases,
                                      const std::vector<double>& metric_values, std::size_t config);

// The line after the table: the highest mean bandwidth and where it was seen.
void print_demo_summary(const Results& results, std::ostream& out);

// --- report and compare --------------------------------------------------------------------

// Reads the results file given as argument `what` ("FILE", "BASE"): JSON, or Parquet by its
// name (kParquetEndings) through the Python package's reader. A file that cannot be read is a
// UsageError: exit code 1 of `compare` means "something got slower" and nothing else.
Results read_results_arg(const std::string& what, const std::string& path);
// Whether `path` ends in one of kParquetEndings (any case).
bool is_parquet_name(const std::string& path);
// Where, when and how the results were measured: {label, text} per brief fact of
// kprof::context_rows (GPU, host, date, backend, cache and clock control, runs, versions), for
// print_columns.
std::vector<std::vector<std::string>> session_context(const SessionInfo& s);
// What limits each region (kprof::analysis_text) for --explain; results without set:analysis
// are a UsageError naming `flag` and the metrics they lack.
std::string explanation(const std::string& flag, const Results& results);

// --- the commands --------------------------------------------------------------------------

int command_devices(const ParsedArgs& args, std::ostream& out, std::ostream& err);
int command_doctor(const ParsedArgs& args, std::ostream& out, std::ostream& err);
int command_demo(const ParsedArgs& args, std::ostream& out, std::ostream& err);
int command_report(const ParsedArgs& args, std::ostream& out, std::ostream& err);
int command_compare(const ParsedArgs& args, std::ostream& out, std::ostream& err);
int command_export(const ParsedArgs& args, std::ostream& out, std::ostream& err);
int command_merge(const ParsedArgs& args, std::ostream& out, std::ostream& err);

}  // namespace kprof::cli
