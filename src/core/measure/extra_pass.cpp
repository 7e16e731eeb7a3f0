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

PassOutput measure_extra_passes(const ExtraPassInputs& in) {
  std::vector<ExtraPassFactory> makers;
  {
    std::lock_guard lock(registry_mutex());
    for (const auto& [name, make] : registry()) makers.push_back(make);
  }
  PassOutput out;
  const auto append = [](auto& to, auto& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  };
  for (const ExtraPassFactory& make : makers) {
    const std::unique_ptr<ExtraPass> pass = make();
    if (!pass->wanted(in.options, in.services)) continue;
    PassOutput measured = pass->measure(in);
    append(out.records, measured.records);
    append(out.source, measured.source);
  }
  return out;
}

}  // namespace kprof::detail
