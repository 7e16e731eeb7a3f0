// The README's example: time kprof's demo "scale" kernel over four sizes, 10 runs each, and
// print the table (mean, spread, 95% interval, ... per size).
#include <iostream>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>

int main() try {
  kprof::demo::Kernels kernels(std::size_t{1} << 26);  // buffers for up to 2^26 floats

  kprof::Options options;
  options.runs = 10;  // and, by default, a cold L2 before every measured kernel

  kprof::Sweep sweep = kprof::Sweep().axis("n", {1 << 20, 1 << 22, 1 << 24, 1 << 26});

  kprof::Results results = kprof::profile(options, sweep, [&](const kprof::Config& config) {
    kprof::Annotation region("scale");  // kernels launched while it is open are measured
    kernels.scale(config.get_int("n"));
  });
  std::cout << results.table();
} catch (const kprof::Error& e) {  // NoGpuError without a GPU, OptionError, ...
  std::cerr << "profile_sweep: " << e.what() << "\n";
  return 1;
}
