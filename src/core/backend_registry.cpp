#include "core/backend_registry.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "core/gpu_layer.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"

namespace kprof::detail {
namespace {

// A function-local static: backends register from static initializers of other files.
std::map<ReplayMode, BackendFactory>& registry() {
  static std::map<ReplayMode, BackendFactory> backends;
  return backends;
}

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

bool activity_records_measure(const Options& options) {
  if (options.replay_mode != ReplayMode::kernel) return false;
  const std::vector<std::string> counters =
      metrics::counter_metrics(metrics::expand(options.metrics));
  return counters.empty() || (counters.size() == 1 && counters.front() == kDurationMetric);
}

bool register_backend(ReplayMode mode, BackendFactory make) {
  std::lock_guard lock(registry_mutex());
  registry().try_emplace(mode, std::move(make));
  return true;
}

std::unique_ptr<Backend> make_registered_backend(const Options& options) {
  BackendFactory make;
  {
    std::lock_guard lock(registry_mutex());
    const auto it = registry().find(options.replay_mode);
    if (it != registry().end()) make = it->second;
  }
  if (!make)
    throw UnsupportedError("replay_mode='" + to_string(options.replay_mode) +
                           "' has no backend in this build");
  return make(options);
}

}  // namespace kprof::detail
