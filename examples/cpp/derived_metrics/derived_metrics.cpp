// The tutorial's step 4 in C++: a derived metric, then the same sweep normalised.
//
// Two memory-bound kernels over four sizes: y = 2x (8 bytes per element) and z = x + y
// (12 bytes). A derived metric turns each run's duration into elements per nanosecond
// (Gelem/s); a second profile normalises every statistic against the "scale" annotation, so
// that "add" reads as a multiple of scale's mean. (On the H200 it is about 1.15x, although add
// moves 1.5x the bytes: it reaches a higher DRAM throughput than scale.)
#include <cstdint>
#include <cstdio>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>
#include <string>
#include <vector>

namespace {

const kprof::Sweep kSizes = kprof::Sweep().axis(
    "n",
    {std::int64_t{1} << 20, std::int64_t{1} << 22, std::int64_t{1} << 24, std::int64_t{1} << 26});

kprof::Results profile(kprof::demo::Kernels& kernels, const std::string& normalize_against) {
  kprof::Options options;
  options.runs = 10;
  options.normalize_against = normalize_against;
  // Called per (annotation, config, run) with the metric values in the order of
  // options.metrics: here the duration alone, in ns.
  options.derive = [](const std::vector<double>& values, std::size_t config) {
    const double n = static_cast<double>(kSizes.config(config).get_int("n"));
    return std::vector<kprof::DerivedValue>{{"throughput", n / values[0], "Gelem/s"}};
  };
  return kprof::profile(options, kSizes, [&](const kprof::Config& config) {
    const auto n = static_cast<std::size_t>(config.get_int("n"));
    {
      kprof::Annotation region("scale");
      kernels.scale(n);
    }
    kprof::Annotation region("add");
    kernels.add(n);
  });
}

void print(const kprof::Results& results, const std::string& metric) {
  std::printf("%-6s %10s %10s %10s %10s  %s\n", "", "n", "mean", "CI95 low", "CI95 high", "unit");
  for (const kprof::Row& row : results.rows()) {
    if (row.metric != metric) continue;
    std::printf("%-6s %10lld %10.3f %10.3f %10.3f  %s\n", row.annotation.c_str(),
                static_cast<long long>(results.sweep().config(row.config).get_int("n")), row.mean,
                row.ci95_lower, row.ci95_upper,
                row.normalized_against.empty() ? row.unit.c_str()
                                               : ("x " + row.normalized_against).c_str());
  }
}

}  // namespace

int main() try {
  kprof::demo::Kernels kernels(std::size_t{1} << 26);
  print(profile(kernels, ""), "throughput");
  print(profile(kernels, "scale"), std::string(kprof::kDurationMetric));
} catch (const kprof::Error& e) {
  std::fprintf(stderr, "derived_metrics: %s\n", e.what());
  return 1;
}
