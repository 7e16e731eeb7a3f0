#include "core/measure/warm_up.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "core/results/aggregate.hpp"
#include "core/say.hpp"
#include "kprof/errors.hpp"
#include "kprof/stats.hpp"

namespace kprof::detail {
namespace {

// "config 2/4 (n=1024)", as every message names a config.
std::string config_text(const Sweep& sweep, std::size_t c) {
  return describe_run(c, sweep.size(), sweep.config(c).to_string(), -1, 0);
}

std::string where_warm_up(const Sweep& sweep, std::size_t c, int call, int calls) {
  return config_text(sweep, c) + ", warm-up call " + std::to_string(call + 1) + "/" +
         std::to_string(calls);
}

// (annotation, kernel) -> launches, of one run.
using Launches = std::map<std::pair<std::string, std::string>, int>;

std::string count_text(const Launches& launches) {
  int total = 0;
  for (const auto& [key, n] : launches) total += n;
  return std::to_string(total) + " kernel launch(es) of " + std::to_string(launches.size()) +
         " kernel(s)";
}

}  // namespace

namespace {

// One unmeasured call of config c, timed as a profiled run is: until its kernels are done.
double timed_call(const RunBody& body, std::size_t c, const SweepServices& services,
                  const std::function<double()>& now) {
  const double t0 = now();
  body(c, -1);
  if (services.wait_for_gpu) services.wait_for_gpu();
  return now() - t0;
}

}  // namespace

std::vector<double> warm_up(const Options& options, const Sweep& sweep, const RunBody& body,
                            const SweepServices& services, const std::function<void()>& poll) {
  if (options.warmup <= 0) return {};
  const auto now = services.now_s ? services.now_s : steady_seconds;
  std::vector<double> last(sweep.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t c = 0; c < sweep.size(); ++c) {
    for (int i = 0; i < options.warmup; ++i) {
      // A failure is the user's, naming the call, as in a measured run (call_benchmark).
      const RunBody checked = [&](std::size_t config, int run) {
        call_benchmark(body, config, run,
                       [&] { return where_warm_up(sweep, c, i, options.warmup); });
      };
      const double seconds = timed_call(checked, c, services, now);
      // The first call compiles and loads: the unprofiled time is a later one's.
      if (i > 0) last[c] = seconds;
      if (poll) poll();
    }
  }
  if (services.gpu_fault) {
    if (const std::string fault = services.gpu_fault(); !fault.empty())
      throw GpuFaultError("the GPU faulted in the warm-up calls (" + fault +
                          "): the CUDA context of this process is lost; end the process");
  }
  if (options.warmup < 2) return {};
  return last;
}

std::vector<double> call_unprofiled(const Options& options, const Sweep& sweep, const RunBody& body,
                                    const SweepServices& services,
                                    const std::function<void()>& poll) {
  if (options.warmup >= 2 || !options.disclose_overhead) return {};
  const auto now = services.now_s ? services.now_s : steady_seconds;
  std::vector<double> seconds(sweep.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t c = 0; c < sweep.size(); ++c) {
    // The measurements are complete: a function that cannot be called once more (donated
    // buffers, a consumed iterator) costs the disclosure, not the profile.
    std::string failure;
    try {
      seconds[c] = timed_call(body, c, services, now);
    } catch (const Error&) {
      throw;  // an interrupt, a fault: as anywhere in the profile
    } catch (const std::exception& e) {
      failure = e.what();
    } catch (...) {
      failure = "an exception that is not a std::exception";
    }
    if (!failure.empty()) {
      say(options, Verbosity::info,
          "warning: the benchmark function failed in " + config_text(sweep, c) +
              ", its unprofiled call after the profile (" + failure +
              "): what profiling added is not told (disclose_overhead=False leaves the call out)");
      seconds[c] = std::numeric_limits<double>::quiet_NaN();
      break;
    }
    if (poll) poll();
  }
  if (services.gpu_fault) {
    if (const std::string fault = services.gpu_fault(); !fault.empty())
      throw GpuFaultError("the GPU faulted in the unprofiled calls after the profile (" + fault +
                          "): the CUDA context of this process is lost; end the process");
  }
  return seconds;
}

void disclose_overhead(const std::vector<double>& unprofiled, const std::vector<RunInfo>& runs,
                       int warmup, std::vector<ConfigInfo>& configs, SessionInfo& session) {
  if (unprofiled.empty()) return;
  std::map<std::size_t, std::vector<std::pair<int, double>>> profiled;
  for (const RunInfo& r : runs) profiled[r.config].emplace_back(r.run, r.seconds);
  std::vector<double> added, plain;
  for (ConfigInfo& c : configs) {
    if (c.config >= unprofiled.size()) continue;
    c.unprofiled_seconds = unprofiled[c.config];
    const auto it = profiled.find(c.config);
    if (it == profiled.end() || !std::isfinite(c.unprofiled_seconds)) continue;
    added.push_back(profiled_seconds_per_run(it->second, warmup) - c.unprofiled_seconds);
    plain.push_back(c.unprofiled_seconds);
  }
  if (added.empty()) return;
  session.overhead_seconds_per_run = summarize(added).median;
  session.unprofiled_seconds_per_run = summarize(plain).median;
}

std::string first_run_note(const std::vector<Record>& records, const Sweep& sweep,
                           const Options& options) {
  if (records.empty()) return "";
  const std::string& metric = records.front().metric;   // one metric: each launch once
  std::map<std::size_t, std::map<int, Launches>> runs;  // config -> run -> launches
  for (const Record& r : records)
    if (r.metric == metric && r.run <= 1) ++runs[r.config][r.run][{r.annotation, r.kernel}];
  int differing = 0;
  std::string first;
  for (const auto& [config, by_run] : runs) {
    const auto run0 = by_run.find(0), run1 = by_run.find(1);
    if (run0 == by_run.end() || run1 == by_run.end() || run0->second == run1->second) continue;
    if (differing++ == 0) {
      first = config_text(sweep, config) +
              ": its first run launched other kernels than its second (" +
              count_text(run0->second) + ", then " + count_text(run1->second) + ")";
    }
  }
  if (differing == 0) return "";
  std::string note = first;
  if (differing > 1) note += ", and so did " + std::to_string(differing - 1) + " other config(s)";
  note +=
      ": compilation or autotuning (torch.compile, triton.autotune, cuBLAS choosing a kernel) "
      "ran in the first run, whose values then differ from the others'";
  note += options.warmup > 0
              ? "; more warm-up calls may help (warmup=" + std::to_string(options.warmup + 1) + ")"
              : "; warmup=1 calls the function once per config before measuring";
  return note;
}

}  // namespace kprof::detail
