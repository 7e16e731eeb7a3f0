// The files the commands write: one rule for every command, so that none replaces a file
// silently and each refusal reads the same.
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.hpp"
#include "kprof/results.hpp"

namespace kprof::cli {

namespace fs = std::filesystem;

void check_output(const ParsedArgs& args, const std::string& option, const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw UsageError(option + " " + path + " is a directory; give a file name");
  const fs::path dir = fs::path(path).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    throw UsageError(option + " " + path + ": directory '" + dir.string() + "' does not exist");
  // A dangling link exists as far as writing it is concerned: it would be replaced.
  if (fs::exists(fs::symlink_status(path, ec)) && !args.has("--force"))
    throw UsageError(path + " exists; pass --force to replace it");
}

void check_csv_outputs(const ParsedArgs& args, const std::string& option, const std::string& prefix,
                       const std::string& tag) {
  // A prefix "out/run1-" writes "out/run1-profiled_data-demo.csv": its folder is "out".
  std::error_code ec;
  const fs::path dir = fs::path(prefix + "x").parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    throw UsageError(option + " " + prefix + ": directory '" + dir.string() + "' does not exist");
  for (const std::string& path : Results::csv_paths(prefix, tag)) check_output(args, option, path);
}

void check_not_an_input(const std::string& option, const std::string& path,
                        const std::vector<std::string>& inputs) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return;  // every input exists: a new file is none of them
  for (const std::string& input : inputs)
    if (fs::equivalent(path, input, ec))
      throw UsageError(option + " " + path + " is one of the files read (" + input +
                       "); write the output to another file");
}

}  // namespace kprof::cli
