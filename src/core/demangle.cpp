#include "kprof/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kprof {

std::string demangle(const std::string& mangled) {
  // __cxa_demangle also reads type encodings: "f" would come back as "float". A mangled
  // function name starts with _Z.
  if (mangled.rfind("_Z", 0) != 0) return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || text == nullptr) return mangled;
  return text.get();
}

}  // namespace kprof
