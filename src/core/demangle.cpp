#include "kprof/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kprof {

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || text == nullptr) return mangled;
  return text.get();
}

}  // namespace kprof
