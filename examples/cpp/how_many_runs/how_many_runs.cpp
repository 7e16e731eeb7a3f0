// The tutorial's step 2 in C++: how many runs does a measurement need?
//
// With a stopping rule instead of a fixed count, each config runs until the 95% interval of its
// mean is within 1% of the mean (at least 5 runs, at most 100, 15 s per config), and the
// results say which rule stopped it. Short kernels vary more from run to run than long ones, so
// they need more runs.
#include <cstdint>
#include <cstdio>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>

int main() try {
  kprof::demo::Kernels kernels(std::size_t{1} << 26);

  kprof::Options options;
  options.stopping = kprof::StoppingRule{};  // 1% of the mean, 5..100 runs, 15 s per config

  kprof::Sweep sweep;
  sweep.axis("n", {std::int64_t{1} << 14, std::int64_t{1} << 20, std::int64_t{1} << 26});
  kprof::Results results = kprof::profile(options, sweep, [&](const kprof::Config& config) {
    kprof::Annotation region("scale");
    kernels.scale(static_cast<std::size_t>(config.get_int("n")));
  });

  std::printf("%10s %12s %8s %12s %6s  %s\n", "n", "mean (us)", "RSD %", "half-width %", "runs",
              "stopped by");
  for (const kprof::Row& row : results.rows()) {
    const double half_width_pct = 100 * (row.ci95_upper - row.mean) / row.mean;
    std::printf("%10lld %12.2f %8.2f %12.2f %6d  %s\n",
                static_cast<long long>(results.sweep().config(row.config).get_int("n")),
                row.mean / 1e3, row.rel_stddev_pct, half_width_pct, row.runs_done,
                row.stopped_by.c_str());
  }
} catch (const kprof::Error& e) {
  std::fprintf(stderr, "how_many_runs: %s\n", e.what());
  return 1;
}
