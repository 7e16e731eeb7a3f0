// What a failed or interrupted profile keeps: its files and the line that says so.
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "core/results/csv.hpp"
#include "kprof/profile.hpp"

namespace kprof {

std::vector<std::string> save_partial_results(const Results& partial, const std::string& prefix,
                                              const std::string& tag, bool csv) {
  // The prefix's folder may not exist yet: without output_csv nothing made it.
  std::error_code ignored;  // a folder that cannot be made fails the write below, which says so
  if (const auto folder = std::filesystem::path(prefix).parent_path(); !folder.empty())
    std::filesystem::create_directories(folder, ignored);
  const std::string name = partial.file_tag("partial-" + tag);
  std::vector<std::string> paths{prefix + detail::file_name_part(name) + ".json"};
  partial.write_json(paths.front());
  if (csv)
    for (std::string& path : partial.write_csv(prefix, name)) paths.push_back(std::move(path));
  return paths;
}

std::string partial_results_note(const Results& partial, const std::vector<std::string>& saved) {
  // Counted from the records, which every results file has (older ones lack the run info).
  std::set<std::pair<std::size_t, int>> runs_seen;
  std::set<std::size_t> configs_seen;
  for (const Record& r : partial.records()) {
    runs_seen.emplace(r.config, r.run);
    configs_seen.insert(r.config);
  }
  const std::size_t runs = runs_seen.size();
  const std::size_t configs = configs_seen.size();
  std::string note = std::to_string(runs) + (runs == 1 ? " run" : " runs") + " of " +
                     std::to_string(configs) + (configs == 1 ? " config" : " configs") +
                     " measured before are kept in partial_results";
  if (!saved.empty()) note += " and saved to " + saved.front();
  return note;
}

}  // namespace kprof
