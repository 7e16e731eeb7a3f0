// The tutorial's step 5 in C++: compute-bound or memory-bound? SM and DRAM throughput in % of
// peak, measured in-process by CUPTI's range profiler (8 passes, kernel replay), on kprof's
// demo kernels: y = 2x streams 512 MiB through DRAM, the FMA kernel keeps the SMs busy.
#include <cstdio>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>
#include <map>
#include <string>

int main() try {
  const std::string sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
  const std::string dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
  const std::size_t n = std::size_t{1} << 26;
  kprof::demo::Kernels kernels(n);

  kprof::Options options;
  options.runs = 3;
  options.metrics = {std::string(kprof::kDurationMetric), sm, dram, "dram__bytes_read.sum"};
  kprof::Results results = kprof::profile(options, [&] {
    {
      kprof::Annotation region("scale");
      kernels.scale(n);
    }
    kprof::Annotation region("fma");
    kernels.fma(n / 4, 2000);
  });
  std::printf("%d passes per measurement\n", results.session().passes);

  std::map<std::string, std::map<std::string, double>> mean;  // annotation -> metric -> mean
  for (const kprof::Row& row : results.rows()) mean[row.annotation][row.metric] = row.mean;
  for (auto& [annotation, m] : mean)
    std::printf("%-6s %8.1f us  SM %5.1f %%  DRAM %5.1f %%  read %7.1f MB  -> %s-bound\n",
                annotation.c_str(), m[std::string(kprof::kDurationMetric)] / 1e3, m[sm], m[dram],
                m["dram__bytes_read.sum"] / 1e6, m[sm] > m[dram] ? "compute" : "memory");
} catch (const kprof::Error& e) {  // CounterPermissionError without access to the counters
  std::fprintf(stderr, "counters: %s\n", e.what());
  return 1;
}
