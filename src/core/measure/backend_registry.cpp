#include "core/measure/backend_registry.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/measure/gpu_layer.hpp"
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

namespace {

// No counter but the duration (launch statistics aside): nothing for the range profiler.
bool no_counter_to_replay(const Options& options) {
  const std::vector<std::string> counters =
      metrics::counter_metrics(metrics::expand(options.metrics));
  return counters.empty() || (counters.size() == 1 && counters.front() == kDurationMetric);
}

}  // namespace

bool activity_records_measure(const Options& options) {
  // With no counter to replay the passes are never asked: "auto" is kernel replay.
  return no_counter_to_replay(options) &&
         chosen_replay_mode(options, [] { return 1; }).mode == ReplayMode::kernel;
}

ReplayChoice chosen_replay_mode(const Options& options, const std::function<int()>& passes) {
  if (options.replay_mode != ReplayMode::automatic) return {options.replay_mode, ""};
  if (no_counter_to_replay(options)) return {ReplayMode::kernel, "no counter to replay"};
  if (options.stopping && traits_of(ReplayMode::application).fixed_runs)
    return {ReplayMode::kernel, "a stopping rule (runs='auto') decides the runs one by one"};
  if (options.cache_control != CacheControl::all)
    return {ReplayMode::kernel, "cache_control='none' (no pass needs a flushed L2)"};
  const int n = passes();
  if (n <= 1) return {ReplayMode::kernel, "the counters take 1 pass"};
  return {ReplayMode::application,
          "the counters take " + std::to_string(n) +
              " passes and cache_control='all': each pass of each kernel starts with a "
              "flushed L2, as in Nsight Compute"};
}

ReplayChoice chosen_replay_mode(const Options& options) {
  return chosen_replay_mode(options, [&options] {
    const std::optional<std::string> chip = metrics::current_chip();
    return chip ? metrics::catalog(*chip).passes(
                      metrics::counter_metrics(metrics::expand(options.metrics)))
                : 1;
  });
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
