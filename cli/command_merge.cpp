// `kprof merge FILE FILE... --out PATH`: the saved results of several ranks or GPUs as one file.
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "kprof/errors.hpp"
#include "kprof/merge.hpp"

namespace kprof::cli {

int command_merge(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  const std::string path = *args.get("--out");  // required: parse_args saw to it
  // The merged file is JSON: under a Parquet name no reader would take it for what it is.
  if (is_parquet_name(path))
    throw UsageError("--out " + path +
                     ": kprof merge writes JSON; give a name ending in .json "
                     "(kprof.merge(...).save(PATH) writes Parquet)");
  check_not_an_input("--out", path, args.positionals());
  check_output(args, "--out", path);
  std::vector<Results> parts;
  for (const std::string& file : args.positionals())
    parts.push_back(read_results_arg("FILE", file));
  Results merged;
  try {
    merged = merge(parts);
  } catch (const FormatError& e) {
    std::string why = e.what();
    if (why.rfind("merge: ", 0) == 0) why.erase(0, 7);  // the command's name is already there
    throw UsageError("cannot merge these files: " + why);
  }
  try {
    merged.write_json(path);
  } catch (const Error& e) {
    err << "kprof merge: " << e.what() << "\n";
    return kExitFailure;
  }
  out << "merged " << parts.size() << " files: " << parts_note(merged) << ", "
      << merged.sweep().size() << " configs, " << merged.rows().size() << " rows\n";
  if (const std::string slowest = imbalance_text(merged); !slowest.empty())
    out << "\nimbalance between ranks:\n" << slowest;
  out << "wrote " << path << "\n";
  return kExitOk;
}

}  // namespace kprof::cli
