// The tutorial's step 9 in C++: keep the evidence on disk, and compare two saved runs.
//
// Profile a sweep and save it as JSON (options, device, versions, every run); read it back as
// the baseline (reading needs no GPU); profile a changed version, in which the "update" region
// adds two vectors (z = x + y, 12 bytes per element) where the baseline scaled one (y = 2x, 8
// bytes), and let kprof::compare say, per row, what got faster or slower (Mann-Whitney U over
// the runs). The same comparison is `kprof compare base.json new.json`, on any machine.
#include <stdlib.h>  // mkdtemp (POSIX)

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>

namespace {

kprof::Results profile(kprof::demo::Kernels& kernels, bool changed) {
  kprof::Options options;
  options.runs = 10;
  kprof::Sweep sweep;
  sweep.axis("n", {std::int64_t{1} << 22, std::int64_t{1} << 24, std::int64_t{1} << 26});
  return kprof::profile(options, sweep, [&](const kprof::Config& config) {
    const auto n = static_cast<std::size_t>(config.get_int("n"));
    kprof::Annotation region("update");
    if (changed)
      kernels.add(n);
    else
      kernels.scale(n);
  });
}

}  // namespace

int main() try {
  kprof::demo::Kernels kernels(std::size_t{1} << 26);
  char pattern[] = "/tmp/kprof-example-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw kprof::Error("cannot create a temporary folder");
  const std::filesystem::path folder = pattern;

  profile(kernels, false).write_json(folder / "base.json");
  const kprof::Results baseline = kprof::Results::read_json(folder / "base.json");
  const kprof::Results candidate = profile(kernels, true);
  candidate.write_json(folder / "new.json");

  const kprof::Comparison comparison = kprof::compare(baseline, candidate);
  std::cout << comparison.table() << "saved in " << folder.string() << "\n";
} catch (const kprof::Error& e) {
  std::cerr << "save_compare: " << e.what() << "\n";
  return 1;
}
