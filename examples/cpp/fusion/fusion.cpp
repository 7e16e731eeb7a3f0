// The tutorial's step 6 in C++: what does fusion save? Measure it in bytes.
//
// z = x + 2x over 2^26 floats as two kernels (y = 2x, then z = x + y) against one that keeps
// 2x in a register (scale_add). Range replay measures each annotation as one range: all the
// DRAM traffic of the region, the intermediate y written and read back included. Theory: 20
// bytes per element against 8, 2.5x.
#include <cstdio>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>
#include <map>
#include <string>

int main() try {
  const std::size_t n = std::size_t{1} << 26;
  kprof::demo::Kernels kernels(n);
  const std::string read = "dram__bytes_read.sum", write = "dram__bytes_write.sum";
  const std::string duration(kprof::kDurationMetric);

  kprof::Options options;
  options.runs = 5;
  options.replay_mode = kprof::ReplayMode::range;
  options.metrics = {read, write, duration};
  kprof::Results results = kprof::profile(options, [&] {
    {
      kprof::Annotation region("unfused");
      kernels.scale(n);
      kernels.add(n);
    }
    kprof::Annotation region("fused");
    kernels.scale_add(n);
  });

  std::map<std::string, std::map<std::string, double>> mean;  // annotation -> metric -> mean
  for (const kprof::Row& row : results.rows()) mean[row.annotation][row.metric] = row.mean;
  for (const char* a : {"unfused", "fused"})
    std::printf("%-8s %8.1f MB moved  %7.1f us  (theory %.1f MB)\n", a,
                (mean[a][read] + mean[a][write]) / 1e6, mean[a][duration] / 1e3,
                (a == std::string("fused") ? 8.0 : 20.0) * static_cast<double>(n) / 1e6);
  const auto moved = [&](const char* a) { return mean[a][read] + mean[a][write]; };
  std::printf("unfused / fused traffic: %.3f (theory 2.5)\n", moved("unfused") / moved("fused"));
} catch (const kprof::Error& e) {  // CounterPermissionError without access to the counters
  std::fprintf(stderr, "fusion: %s\n", e.what());
  return 1;
}
