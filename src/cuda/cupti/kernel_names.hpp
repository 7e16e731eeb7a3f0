// Kernel names as users read them: demangled, computed once per distinct name.
#pragma once

#include <string>
#include <unordered_map>

#include "kprof/demangle.hpp"

namespace kprof::detail {

// demangle() with a cache: a sweep launches the same few kernels thousands of times.
class KernelNames {
 public:
  const std::string& demangled(const std::string& mangled);

 private:
  std::unordered_map<std::string, std::string> cache_;
};

}  // namespace kprof::detail
