#include "core/measure/extra_pass.hpp"

#include <iterator>
#include <map>
#include <mutex>
#include <utility>

namespace kprof::detail {
namespace {

// By name, so the order the passes run in is the same in every process.
std::map<std::string, ExtraPassFactory>& registry() {
  static auto* passes = new std::map<std::string, ExtraPassFactory>();
  return *passes;
}

std::mutex& registry_mutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

}  // namespace

bool register_extra_pass(const std::string& name, ExtraPassFactory make) {
  std::lock_guard lock(registry_mutex());
  registry().emplace(name, std::move(make));
  return true;
}

std::vector<std::string> extra_pass_names() {
  std::lock_guard lock(registry_mutex());
  std::vector<std::string> names;
  for (const auto& [name, make] : registry()) names.push_back(name);
  return names;
}

std::vector<Record> measure_extra_passes(const ExtraPassInputs& in) {
  std::vector<ExtraPassFactory> makers;
  {
    std::lock_guard lock(registry_mutex());
    for (const auto& [name, make] : registry()) makers.push_back(make);
  }
  std::vector<Record> out;
  for (const ExtraPassFactory& make : makers) {
    const std::unique_ptr<ExtraPass> pass = make();
    if (!pass->wanted(in.options, in.services)) continue;
    std::vector<Record> records = pass->measure(in);
    out.insert(out.end(), std::make_move_iterator(records.begin()),
               std::make_move_iterator(records.end()));
  }
  return out;
}

}  // namespace kprof::detail
