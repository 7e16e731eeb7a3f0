// `kprof metrics`: the hardware-counter catalog of a chip, metric sets and pass counts, offline.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace kprof::cli {

int command_metrics(const ParsedArgs& args, std::ostream& out, std::ostream& err);

// `text` cut into lines of at most `width` characters at spaces, each line after `indent`.
std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent);

// "a,b, c" -> {"a", "b", "c"}; empty items dropped.
std::vector<std::string> split_list(const std::string& text);

}  // namespace kprof::cli
