// Kernel names as users read them: demangled, computed once per distinct name.
#pragma once

#include <string>
#include <unordered_map>

namespace kprof::detail {

// "_Z5scalePKfPfm" -> "scale(float const*, float*, unsigned long)"; a name that is not a
// mangled C++ name (extern "C", Triton kernels) comes back unchanged.
std::string demangle(const std::string& mangled);

// demangle() with a cache: a sweep launches the same few kernels thousands of times.
class KernelNames {
 public:
  const std::string& demangled(const std::string& mangled);

 private:
  std::unordered_map<std::string, std::string> cache_;
};

}  // namespace kprof::detail
