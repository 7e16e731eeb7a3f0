#pragma once

namespace kprof {
// The library's version, "major.minor.patch".
const char* version() noexcept;
}  // namespace kprof
