// The text of a number, written and read alike everywhere: result files (CSV cells, JSON's
// non-finite values) and option values. Read as std::from_chars reads it, in the C locale
// whatever the program's, with standard libraries that lack floating-point from_chars.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kprof::detail {

// The shortest text that reads back as the same double (std::to_chars); "nan", "inf", "-inf".
std::string format_double(double v);
// The whole of `text` as a number; empty when any of it is not.
std::optional<double> parse_double(std::string_view text);
std::optional<std::int64_t> parse_int(std::string_view text);

}  // namespace kprof::detail
