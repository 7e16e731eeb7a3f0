// Which backend measures each replay mode. A backend registers itself in its own source file
// (register_backend at namespace scope), so that a new replay mode is its enum value in
// include/kprof/options.hpp and one new source file: nothing else names it.
#pragma once

#include <functional>
#include <memory>

#include "core/backend.hpp"
#include "kprof/options.hpp"

namespace kprof::detail {

using BackendFactory = std::function<std::unique_ptr<Backend>(const Options& options)>;

// Makes `make` the backend of hardware counters in `mode`; returns true (for a static
// initializer). Registering a mode twice keeps the first.
bool register_backend(ReplayMode mode, BackendFactory make);

// The backend registered for options.replay_mode; UnsupportedError when there is none.
std::unique_ptr<Backend> make_registered_backend(const Options& options);

}  // namespace kprof::detail
