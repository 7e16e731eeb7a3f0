// Kernel names as kprof's tables show them.
#pragma once

#include <string>

namespace kprof {

// "_Z5scalePKfPfm" -> "scale(float const*, float*, unsigned long)"; a name that is not a
// mangled C++ function name (does not start with _Z: extern "C", Triton kernels) comes back
// unchanged. Every backend names kernels through it, so that a kernel reads the same under
// each.
std::string demangle(const std::string& mangled);

}  // namespace kprof
