// The tutorial's step 3 in C++: a 1 MiB y = 2x with a cold L2 (cache_control all, the default)
// and with the L2 the previous run left warm (none).
#include <iostream>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>

namespace {

double median_ns(kprof::demo::Kernels& kernels, kprof::CacheControl cache) {
  kprof::Options options;
  options.runs = 31;
  options.cache_control = cache;
  options.verbosity = kprof::Verbosity::silent;
  kprof::Results results = kprof::profile(options, [&] {
    kprof::Annotation region("scale");
    kernels.scale(std::size_t{1} << 18);
  });
  return results.rows().front().median;
}

}  // namespace

int main() try {
  kprof::demo::Kernels kernels(std::size_t{1} << 18);  // 1 MiB of floats
  const double cold = median_ns(kernels, kprof::CacheControl::all);
  const double warm = median_ns(kernels, kprof::CacheControl::none);
  std::cout << "cold L2: median " << cold << " ns\nwarm L2: median " << warm
            << " ns\ncold / warm: " << cold / warm << "\n";
} catch (const kprof::Error& e) {
  std::cerr << "cache_control: " << e.what() << "\n";
  return 1;
}
