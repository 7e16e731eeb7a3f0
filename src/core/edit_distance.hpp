// How far two names are apart, for "did you mean ...?" in error messages.
#pragma once

#include <cstddef>
#include <string_view>

namespace kprof::detail {

// Levenshtein distance: insertions, deletions and substitutions of one character.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace kprof::detail
