#include "kprof/errors.hpp"

#include <array>
#include <span>
#include <string_view>

#include "core/edit_distance.hpp"

namespace kprof {

std::span<const std::string_view> error_kinds() {
  // Asked of the classes themselves, so that a kind is spelled in one place, its class.
  static const std::string m;
  static const std::array<std::string_view, 19> kinds{
      Error(m).kind(),
      OptionError(m, m, m).kind(),
      ConfigError(m).kind(),
      AnnotationError(m).kind(),
      MeasurementError(m).kind(),
      UserFunctionError(m, 0, 0).kind(),
      NoGpuError(m).kind(),
      CuptiBusyError(m, m).kind(),
      CountersBusyError(m).kind(),
      CudaError(m).kind(),
      GpuFaultError(m).kind(),
      UnsupportedError(m).kind(),
      ThermalControlError(m).kind(),
      CoolingTimeoutError(m).kind(),
      ClockControlError(m).kind(),
      ClockPermissionError(m).kind(),
      CounterPermissionError(m).kind(),
      InterruptError(m).kind(),
      FormatError(m).kind(),
  };
  return kinds;
}

std::string join_choices(const std::vector<std::string>& choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) out += (i + 1 == choices.size()) ? " or " : ", ";
    out += "'" + choices[i] + "'";
  }
  return out;
}

std::string closest_choice(const std::string& given, const std::vector<std::string>& choices) {
  std::string best;
  std::size_t best_distance = 3;  // accept at most 2 edits
  for (const std::string& c : choices) {
    if (given.size() >= 2 && c.rfind(given, 0) == 0) return c;  // a prefix: "dev" -> "devices"
    const std::size_t d = detail::edit_distance(given, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

OptionError::OptionError(std::string option, std::string value, std::string valid)
    : Error(option + "=" + value + " is not valid; valid: " + valid),
      option_(std::move(option)),
      value_(std::move(value)),
      valid_(std::move(valid)) {}

}  // namespace kprof
