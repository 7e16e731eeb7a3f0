#include "kprof/profile.hpp"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/backend_registry.hpp"
#include "core/measure/engine.hpp"
#include "core/measure/flop_pass.hpp"
#include "core/measure/gpu_layer.hpp"
#include "core/measure/interrupt_watch.hpp"
#include "core/measure/region_tracker.hpp"
#include "core/measure/run_conditions.hpp"
#include "core/measure/sampling_pass.hpp"
#include "core/say.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "kprof/metrics.hpp"

namespace kprof {
namespace {

using detail::fixed;

// INFO verbosity: one line when the sweep starts and one per finished config.
detail::SweepHooks progress_hooks(const Options& options, const Sweep& sweep) {
  detail::SweepHooks hooks;
  if (options.verbosity == Verbosity::silent) return hooks;
  hooks.started = [&sweep, &options](const SessionInfo& s) {
    const std::string runs =
        options.stopping ? "up to " + std::to_string(options.stopping->max_runs) +
                               " run(s) (until the 95% interval is within " +
                               fixed(100 * options.stopping->rel_half_width, 2) + "% of the mean)"
                         : std::to_string(s.runs) + " run(s)";
    // Counters: the replay mode and the passes each measurement costs, known before the first
    // run.
    const std::string counters = s.backend == "cupti-activity"
                                     ? std::string()
                                     : ", replay_mode=" + s.replay_mode + ", " +
                                           std::to_string(s.passes) +
                                           (s.passes == 1 ? " pass" : " passes");
    log_line("[kprof] profiling " + std::to_string(sweep.size()) + " config(s) x " + runs + " on " +
             s.gpu + " (" + s.backend + counters + ", cache_control=" + s.cache_control + ")");
  };
  // On standard error, a sweep of many short configs says the first, the last, and one config
  // every few seconds, not one line each; a front end with a sink of its own gets every line.
  auto last_line = std::make_shared<double>(-1e9);
  hooks.config_end = [&sweep, &options, last_line](const ConfigInfo& c) {
    const double now = detail::steady_seconds();
    if (!log_sink_set() && !config_line_due(c.config, sweep.size(), now, *last_line)) return;
    *last_line = now;
    std::string params = sweep.config(c.config).to_string();
    const std::string why = options.stopping ? " (stopped by " + c.stopped_by + ")" : "";
    log_line("[kprof] config " + std::to_string(c.config + 1) + "/" + std::to_string(sweep.size()) +
             (params.empty() ? "" : " (" + params + ")") + ": " + std::to_string(c.runs) +
             " run(s)" + why + ", " + fixed(c.seconds, 2) + " s");
  };
  return hooks;
}

// Saves a failed profile's partial results under the prefix and says where; a failure to save
// them must not hide the error that stopped the profile.
void keep_partial(const Error& e, const Options& options) noexcept {
  if (!e.partial_results()) return;
  try {
    const std::vector<std::string> saved = save_partial_results(
        *e.partial_results(), options.output_prefix, "profile", options.output_csv);
    if (options.verbosity != Verbosity::silent)
      log_line("[kprof] " + partial_results_note(*e.partial_results(), saved));
  } catch (const std::exception& failed) {
    log_line(std::string("[kprof] the partial results could not be saved: ") + failed.what());
  }
}

// replay_mode="auto" becomes the mode that measures, named in the results and, at INFO, said.
void choose_replay_mode(Options& options) {
  const detail::ReplayChoice choice = detail::chosen_replay_mode(options);
  options.replay_mode = choice.mode;
  if (!choice.why.empty() && options.verbosity != Verbosity::silent &&
      choice.why != "no counter to replay")
    log_line("[kprof] replay_mode='auto': " + to_string(choice.mode) + " replay, since " +
             choice.why);
}

bool counts_flop(const Options& options) {
  return !detail::flop_counts_in(metrics::expand(options.metrics)).empty();
}

bool samples_warps(const Options& options) {
  return !detail::sampled_metrics_in(metrics::expand(options.metrics)).empty();
}

}  // namespace

void prepare_profile(const Options& options) noexcept {
  try {
    if ((counts_flop(options) && detail::flop_counting_unavailable().empty()) ||
        (samples_warps(options) && detail::warp_sampling_unavailable().empty()))
      detail::watch_module_loads();
  } catch (...) {  // the profile that needs the watcher says what stopped it
  }
}

bool saves_partial_results(bool output_csv, const std::string& output_prefix) {
  return output_csv || !output_prefix.empty();
}

Results profile(const Options& given, const Sweep& sweep, const BenchmarkFn& fn,
                const ProfileHooks& profile_hooks) {
  given.validate();
  // Before anything touches CUDA or CUPTI: a profile already running (nested, or on another
  // thread) holds them.
  detail::RegionTracker::instance().check_no_profile();
  if (profile_hooks.checked) profile_hooks.checked();
  // Metric sets stand for their members from here on: rows, records and derived metrics
  // name real metrics.
  Options options = given;
  options.metrics = metrics::expand(given.metrics);
  // The folder the CSV files go to, made before any GPU work: a path that cannot be one is the
  // first thing to hear of.
  if (options.output_csv) options.output_prefix = make_output_prefix(options);
  choose_replay_mode(options);
  auto backend = detail::make_gpu_backend(options);
  detail::DeviceServices device = detail::make_device_services(options);
  detail::SweepServices services;
  services.device = device.device.get();
  services.device_unavailable = device.device_unavailable;
  services.thermal = device.thermal ? device.thermal.get() : device.device.get();
  services.thermal_unavailable = device.thermal_unavailable;
  services.clocks = device.clocks.get();
  services.clocks_unavailable = device.clocks_unavailable;
  services.gpu_fault = detail::gpu_fault;
  services.wait_for_gpu = detail::wait_for_gpu;
  // set:flop: modules loaded from here on are kept (and since prepare_profile, if called).
  if (counts_flop(options)) {
    detail::watch_module_loads();
    services.instruction_counter = detail::make_instruction_counter;
  }
  if (!detail::sampled_metrics_in(options.metrics).empty()) {
    services.warp_sampler = detail::prepare_warp_sampling();
    // The sampled instructions' SASS and source lines are read from the code of the modules
    // loaded from here on; without it the samples still count, placed by function and offset.
    try {
      detail::watch_module_loads();
    } catch (const Error&) {
    }
  }
  detail::SweepHooks hooks = progress_hooks(options, sweep);
  hooks.run_end = profile_hooks.run_done;
  const detail::InterruptWatch ctrl_c;
  hooks.interrupt_poll = [&ctrl_c, &profile_hooks] {
    ctrl_c.check();
    if (profile_hooks.interrupt_poll) profile_hooks.interrupt_poll();
  };
  std::optional<Results> measured;
  try {
    measured.emplace(detail::run_sweep(
        *backend, options, sweep, [&](std::size_t c, int) { fn(sweep.config(c)); }, hooks,
        services));
  } catch (const Error& e) {
    if (!profile_hooks.front_end_saves_partial_results &&
        saves_partial_results(options.output_csv, given.output_prefix))
      keep_partial(e, options);
    throw;
  }
  Results& results = *measured;
  if (options.output_csv) {
    for (const auto& path : results.write_csv(options.output_prefix, results.file_tag("profile")))
      if (options.verbosity != Verbosity::silent) log_line("[kprof] wrote " + path);
  }
  return results;
}

Results profile(const Options& options, const std::function<void()>& fn) {
  return profile(options, Sweep(), [&](const Config&) { fn(); });
}

}  // namespace kprof
