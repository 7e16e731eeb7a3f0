// What limits each kernel, answered by kprof as Nsight Compute answers it: the Speed-of-Light
// verdict, the busiest unit, occupancy and what limits it, and the roofline, from set:analysis
// (13 passes on GH100, application replay by default), on kprof's demo kernels: y = 2x over 256
// MiB (memory), dependent FMAs (compute) and y = 2x over 16 KiB (too small a grid). Where this
// process can count FP instructions (CUPTI 13.5 or later and nvdisasm: `kprof doctor` says),
// set:flop too, which gives each kernel its FP32 FLOP/s and roofline point.
#include <cstdio>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>

int main() try {
  kprof::Options options;
  options.runs = 3;
  options.metrics = {"set:analysis"};
  if (const kprof::SystemInfo system = kprof::query_system(); system.flop_counting.empty())
    options.metrics.emplace_back("set:flop");
  else
    std::printf("set:flop left out: %s\n\n", system.flop_counting.c_str());
  // set:flop counts the kernels whose code kprof kept as it loaded: from before their first launch.
  kprof::prepare_profile(options);

  const std::size_t n = std::size_t{1} << 26;
  kprof::demo::Kernels kernels(n);
  const kprof::Results results = kprof::profile(options, [&] {
    {
      kprof::Annotation region("stream");
      kernels.scale(n);
    }
    {
      kprof::Annotation region("fma");
      kernels.fma(n / 4, 2000);
    }
    kprof::Annotation region("tiny");
    kernels.scale(4096);
  });
  std::printf("%s", kprof::analysis_text(kprof::analyze(results)).c_str());
} catch (const kprof::Error& e) {  // CounterPermissionError without access to the counters
  std::fprintf(stderr, "what_limits: %s\n", e.what());
  return 1;
}
