// `kprof merge FILE FILE... --out PATH`: the saved results of several ranks or GPUs as one file.
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "kprof/errors.hpp"
#include "kprof/merge.hpp"

namespace kprof::cli {

int command_merge(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  const std::optional<std::string> path = args.get("--out");
  if (!path) throw UsageError("missing --out PATH: the merged file to write");
  if (std::filesystem::exists(*path) && !args.has("--force"))
    throw UsageError(*path + " exists; pass --force to replace it");
  std::vector<Results> parts;
  for (const std::string& file : args.positionals())
    parts.push_back(read_results_arg("FILE", file));
  Results merged;
  try {
    merged = merge(parts);
  } catch (const FormatError& e) {
    throw UsageError(e.what());
  }
  try {
    merged.write_json(*path);
  } catch (const Error& e) {
    err << "kprof merge: " << e.what() << "\n";
    return kExitFailure;
  }
  out << "merged " << parts.size() << " files: " << parts_note(merged) << ", "
      << merged.sweep().size() << " configs, " << merged.rows().size() << " rows\n";
  if (const std::string slowest = imbalance_text(merged); !slowest.empty())
    out << "\nimbalance between ranks:\n" << slowest;
  out << "wrote " << *path << "\n";
  return kExitOk;
}

}  // namespace kprof::cli
