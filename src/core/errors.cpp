#include "kprof/errors.hpp"

namespace kprof {

std::string join_choices(const std::vector<std::string>& choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) out += (i + 1 == choices.size()) ? " or " : ", ";
    out += "'" + choices[i] + "'";
  }
  return out;
}

OptionError::OptionError(std::string option, std::string value, std::string valid)
    : Error(option + "=" + value + " is not valid; valid: " + valid),
      option_(std::move(option)),
      value_(std::move(value)),
      valid_(std::move(valid)) {}

}  // namespace kprof
