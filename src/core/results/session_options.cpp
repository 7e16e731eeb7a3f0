// The option fields of a result's SessionInfo, written in one place (kprof/profile.hpp).
#include "kprof/options.hpp"
#include "kprof/profile.hpp"
#include "kprof/results.hpp"

namespace kprof {

void describe_options(SessionInfo& session, const Options& options) {
  session.replay_mode = to_string(options.replay_mode);
  session.cache_control = to_string(options.cache_control);
  session.clock_control = to_string(options.clock_control);
  session.metrics = options.metrics;
  session.runs = options.stopping ? 0 : options.runs;
  session.thermal_mode = to_string(options.thermal_mode);
  session.throttle_threshold = options.throttle_threshold;
  if (options.stopping) {
    session.stop_rel_half_width = options.stopping->rel_half_width;
    session.stop_min_runs = options.stopping->min_runs;
    session.stop_max_runs = options.stopping->max_runs;
    session.stop_time_budget_s = options.stopping->time_budget_s;
  }
}

}  // namespace kprof
