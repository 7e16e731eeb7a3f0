#include "kprof/profile.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "api/gpu.hpp"
#include "core/engine.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"

namespace kprof {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// INFO verbosity: one line when the sweep starts and one per finished config.
detail::SweepHooks progress_hooks(const Options& options, const Sweep& sweep) {
  detail::SweepHooks hooks;
  if (options.verbosity == Verbosity::silent) return hooks;
  hooks.started = [&sweep](const SessionInfo& s) {
    log_line("[kprof] profiling " + std::to_string(sweep.size()) + " config(s) x " +
             std::to_string(s.runs) + " run(s) on " + s.gpu + " (" + s.backend +
             ", cache_control=" + s.cache_control + ")");
  };
  hooks.progress = [&sweep](const detail::Progress& p) {
    if (p.run != p.runs) return;
    std::string params = sweep.config(p.config).to_string();
    log_line("[kprof] config " + std::to_string(p.config + 1) + "/" + std::to_string(p.configs) +
             (params.empty() ? "" : " (" + params + ")") + ": " + std::to_string(p.runs) +
             " run(s), " + fixed(p.elapsed_s, 2) + " s elapsed");
  };
  return hooks;
}

// nsight-python's convention: a prefix, not a folder; a fresh temporary folder by default.
std::string output_prefix(const Options& options) {
  if (options.output_prefix.empty()) {
    std::string templ = (std::filesystem::temp_directory_path() / "kprof_XXXXXX").string();
    if (!mkdtemp(templ.data())) throw Error("cannot create a temporary folder for output_csv");
    return templ + "/";
  }
  auto parent = std::filesystem::path(options.output_prefix).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  return options.output_prefix;
}

}  // namespace

Results profile(const Options& options, const Sweep& sweep, const BenchmarkFn& fn) {
  options.validate();
  auto backend = detail::make_gpu_backend(options);
  Results results = detail::run_sweep(
      *backend, options, sweep, [&](std::size_t c, int) { fn(sweep.config(c)); },
      progress_hooks(options, sweep));
  if (options.output_csv) {
    for (const auto& path : results.write_csv(output_prefix(options), "profile"))
      if (options.verbosity != Verbosity::silent) log_line("[kprof] wrote " + path);
  }
  return results;
}

Results profile(const Options& options, const std::function<void()>& fn) {
  return profile(options, Sweep(), [&](const Config&) { fn(); });
}

}  // namespace kprof
