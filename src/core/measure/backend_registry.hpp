// Which backend measures each replay mode. A backend registers itself in its own source file
// (register_backend at namespace scope), so that a new replay mode is its enum value in
// include/kprof/options.hpp and one new source file: nothing else names it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/measure/backend.hpp"
#include "kprof/options.hpp"

namespace kprof::detail {

using BackendFactory = std::function<std::unique_ptr<Backend>(const Options& options)>;

// Makes `make` the backend of hardware counters in `mode`; returns true (for a static
// initializer). Registering a mode twice keeps the first.
bool register_backend(ReplayMode mode, BackendFactory make);

// The mode replay_mode="auto" measures `options` in, given the passes its counters take on this
// GPU (asked only when it matters): application replay for a set of several passes with
// cache_control="all", whose later passes CUPTI's kernel replay (before 13.4) cannot start with
// a flushed L2; kernel replay otherwise (no counter, one pass, warm caches, or a stopping rule,
// which needs the runs decided one at a time). Any other replay_mode is returned as it is.
struct ReplayChoice {
  ReplayMode mode = ReplayMode::kernel;
  std::string why;  // for the INFO line; empty when replay_mode was not "auto"
};
ReplayChoice chosen_replay_mode(const Options& options, const std::function<int()>& passes);
// The same, with the passes the counters take on the current device's chip (1 without a GPU).
ReplayChoice chosen_replay_mode(const Options& options);

// The backend registered for options.replay_mode; UnsupportedError when there is none.
std::unique_ptr<Backend> make_registered_backend(const Options& options);

}  // namespace kprof::detail
