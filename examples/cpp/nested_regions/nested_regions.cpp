// Nested annotations: one "step" region holding two inner regions and a kernel of its own.
//
// Every region gets its own rows under its path ("step", "step/scale", "step/add"), and an
// outer region's value includes the kernels of the regions nested in it, as NVTX ranges do. So
// per run, step = scale + add + the fma launched directly inside step; the program prints the
// table and then checks that sum for every size.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>
#include <map>
#include <string>

int main() try {
  kprof::demo::Kernels kernels(std::size_t{1} << 24);

  kprof::Options options;
  options.runs = 5;
  // "step" holds its inner regions' kernels and its own: its value is their total time.
  options.combine = kprof::CombineKind::sum;

  kprof::Sweep sweep;
  sweep.axis("n", {std::int64_t{1} << 22, std::int64_t{1} << 24});

  kprof::Results results = kprof::profile(options, sweep, [&](const kprof::Config& config) {
    const auto n = static_cast<std::size_t>(config.get_int("n"));
    kprof::Annotation step("step");
    {
      kprof::Annotation inner("scale");
      kernels.scale(n);
    }
    {
      kprof::Annotation inner("add");
      kernels.add(n);
    }
    kernels.fma(n, 256);  // inside "step" only: counted in step, in no inner region
  });
  std::cout << results.table() << "\n";

  // Mean durations (ns) by config and region path.
  std::map<std::size_t, std::map<std::string, double>> mean_ns;
  for (const kprof::Row& row : results.rows()) {
    if (row.metric == kprof::kDurationMetric) mean_ns[row.config][row.annotation] = row.mean;
  }
  for (const auto& [config, by_path] : mean_ns) {
    const double step = by_path.at("step");
    const double inner = by_path.at("step/scale") + by_path.at("step/add");
    std::printf("%s: step %.1f us = step/scale + step/add %.1f us + own kernels %.1f us\n",
                results.sweep().config(config).to_string().c_str(), step / 1e3, inner / 1e3,
                (step - inner) / 1e3);
    if (!(step > inner)) {
      std::cerr << "nested_regions: the outer region does not include its inner regions\n";
      return 1;
    }
  }
} catch (const kprof::Error& e) {  // NoGpuError without a GPU, ...
  std::cerr << "nested_regions: " << e.what() << "\n";
  return 1;
}
