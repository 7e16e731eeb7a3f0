// The `kprof` command line: devices, doctor, demo.
//
// Linked into the `kprof` executable (cli/main.cpp) and into the Python extension, whose
// `kprof._core.cli_main(argv)` backs the `kprof` console script of the Python package.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "kprof/results.hpp"

namespace kprof::cli {

// Exit codes of every command.
inline constexpr int kExitOk = 0;       // the command did what it was asked
inline constexpr int kExitFailure = 1;  // it ran and something failed (doctor: timing broken)
inline constexpr int kExitUsage = 2;    // bad command line, or no GPU for a command that needs one

// Runs the command in argv[1..] (argv[0], the program, is ignored), writing to std::cout and
// std::cerr. Returns the exit code; never throws.
int main(int argc, char** argv);

// The same with the arguments after the program name and explicit output streams.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// One option of a command, as `kprof help <command>` lists it and parse_args reads it.
struct OptionSpec {
  std::string name;        // "--runs"
  std::string value_name;  // "N"; empty for a flag
  std::string help;
  bool required = false;  // the synopsis shows it without brackets; parse_args insists on it
  // Handled by the Python package (kprof.report draws plots and HTML): this executable refuses
  // it, and kprof.cli hands a command line holding it to Python.
  bool python_only = false;
};

// The options of `command` ("report") and its synopsis, from the one table the command line
// reads; kprof.report builds its parser from them. Empty for an unknown command.
std::vector<OptionSpec> command_options(const std::string& command);
std::string command_synopsis(const std::string& command);

// The endings of the Parquet results files the Python package writes (with pyarrow), in lower
// case; kprof._parquet reads them from here.
inline const std::vector<std::string> kParquetEndings = {".parquet", ".pq"};

// Reads a Parquet results file, throwing FormatError when it cannot. The Python extension sets
// one, so that the command reads every file the Python API writes; the executable alone has
// none and says that such a file needs the Python package.
using ParquetReader = std::function<Results(const std::string& path)>;
void set_parquet_reader(ParquetReader reader);

}  // namespace kprof::cli
