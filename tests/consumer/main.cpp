// Builds against an installed kprof and uses its GPU-free API.
#include <iostream>
#include <kprof/kprof.hpp>

int main() {
  kprof::Sweep sweep = kprof::Sweep().axis("n", {std::int64_t{512}, std::int64_t{1024}});
  kprof::Options options;
  options.runs = 3;
  options.validate();
  try {
    kprof::parse_cache_control("warm");
    return 1;
  } catch (const kprof::OptionError& e) {
    std::cout << "rejected: " << e.what() << "\n";
  }
  std::cout << "kprof " << kprof::version() << ", " << sweep.size() << " configs\n";
  return sweep.size() == 2 ? 0 : 1;
}
