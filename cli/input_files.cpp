// The results files the commands read: kprof's JSON, which the core reads, and Parquet, which the
// Python package reads for it, behind one function for every command.
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "kprof/errors.hpp"
#include "kprof/results.hpp"

namespace kprof::cli {

namespace {

ParquetReader& parquet_reader() {
  static ParquetReader reader;
  return reader;
}

}  // namespace

void set_parquet_reader(ParquetReader reader) { parquet_reader() = std::move(reader); }

bool is_parquet_name(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::any_of(kParquetEndings.begin(), kParquetEndings.end(),
                     [&](const std::string& ending) { return lower.ends_with(ending); });
}

Results read_results_arg(const std::string& what, const std::string& path) {
  try {
    if (!is_parquet_name(path)) return Results::read_json(path);
    if (!parquet_reader())
      throw FormatError(path +
                        " is a Parquet file, which the kprof command of the Python "
                        "package reads (python3 -m kprof.cli, with pyarrow)");
    return parquet_reader()(path);
  } catch (const FormatError& e) {
    throw UsageError("cannot read " + what + ": " + e.what());
  }
}

}  // namespace kprof::cli
