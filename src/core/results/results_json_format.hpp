// What names a results document and its layout's version, written first and checked first.
#pragma once

namespace kprof::detail {

inline constexpr const char* kFormat = "kprof-results";
inline constexpr int kVersion = 1;

}  // namespace kprof::detail
