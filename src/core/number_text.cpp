#include "core/number_text.hpp"

#include <locale.h>
#include <stdlib.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace kprof::detail {

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::optional<double> parse_double(std::string_view text) {
  // strtod in the C locale, as libc++ before LLVM 20 has no floating-point std::from_chars
  // (and a program's own locale may write its decimal point as a comma); what from_chars
  // refuses (blanks, a leading '+', hexadecimal) is refused here too.
  if (text.empty() || text.front() == '+' ||
      text.find_first_of(" \t\n\r\f\vxX") != std::string_view::npos)
    return std::nullopt;
  static const locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", locale_t{});
  // strtod reads to a NUL: a copy, on the stack for the usual short number (a file holds
  // millions of them).
  char small[64];
  std::string large;
  const char* begin = small;
  if (text.size() < sizeof small) {
    std::memcpy(small, text.data(), text.size());
    small[text.size()] = '\0';
  } else {
    large.assign(text);
    begin = large.c_str();
  }
  char* end = nullptr;
  errno = 0;
  const double v = strtod_l(begin, &end, c_locale);
  if (end != begin + text.size()) return std::nullopt;
  // Out of a double's range: from_chars refuses it, strtod gives HUGE_VAL or 0 and ERANGE.
  if (errno == ERANGE && (std::isinf(v) || v == 0.0)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return v;
}

}  // namespace kprof::detail
