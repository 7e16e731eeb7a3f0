#include "cuda/cupti/kernel_names.hpp"

namespace kprof::detail {

const std::string& KernelNames::demangled(const std::string& mangled) {
  auto it = cache_.find(mangled);
  if (it == cache_.end()) it = cache_.emplace(mangled, demangle(mangled)).first;
  return it->second;
}

}  // namespace kprof::detail
