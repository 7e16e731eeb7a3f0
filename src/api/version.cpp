#include "kprof/version.hpp"

namespace kprof {
const char* version() noexcept { return KPROF_VERSION; }
}  // namespace kprof
