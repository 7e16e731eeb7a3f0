#include "cuda/kernel_names.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kprof::detail {

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || text == nullptr) return mangled;
  return text.get();
}

const std::string& KernelNames::demangled(const std::string& mangled) {
  auto it = cache_.find(mangled);
  if (it == cache_.end()) it = cache_.emplace(mangled, demangle(mangled)).first;
  return it->second;
}

}  // namespace kprof::detail
