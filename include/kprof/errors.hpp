// kprof's typed errors. One hierarchy, mirrored one to one by kprof.errors in Python.
//
// Every error that bad input can cause is thrown before any GPU work, and names the option,
// the value and what would be valid. Errors thrown during a sweep carry what was measured
// before the failure (partial_results()).
#pragma once

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

class Results;

// Base of every error kprof throws.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  // The Python class name this error maps to (kprof.errors.<name>).
  virtual const char* kind() const noexcept { return "KprofError"; }
  // What was measured before a sweep failed; null outside a sweep.
  const std::shared_ptr<const Results>& partial_results() const noexcept { return partial_; }
  void set_partial_results(std::shared_ptr<const Results> r) { partial_ = std::move(r); }

 private:
  std::shared_ptr<const Results> partial_;
};

// An option has a value kprof cannot accept. Names the option, the value and what is valid.
class OptionError : public Error {
 public:
  OptionError(std::string option, std::string value, std::string valid);
  const char* kind() const noexcept override { return "OptionError"; }
  const std::string& option() const noexcept { return option_; }
  const std::string& value() const noexcept { return value_; }
  const std::string& valid() const noexcept { return valid_; }

 private:
  std::string option_, value_, valid_;
};

// A configuration of the sweep does not fit the benchmark (arity, type, unknown axis).
class ConfigError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "ConfigError"; }
};

// Annotations used in a way kprof cannot measure: opened twice in one run, left open,
// closed out of order, or named by normalize_against without existing.
class AnnotationError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "AnnotationError"; }
};

// The measurement itself failed: a region launched no kernel, records were dropped.
class MeasurementError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "MeasurementError"; }
};

// The user's benchmark function threw. Names the config and the run; the original
// message is kept in what().
class UserFunctionError : public Error {
 public:
  UserFunctionError(const std::string& message, std::size_t config, int run)
      : Error(message), config_(config), run_(run) {}
  const char* kind() const noexcept override { return "UserFunctionError"; }
  std::size_t config() const noexcept { return config_; }
  int run() const noexcept { return run_; }

 private:
  std::size_t config_;
  int run_;
};

// No GPU available: no driver, no device, or kprof built without CUDA. Its message is
// kNoGpuAvailable and the reason, the one wording of the library, the command and the docs.
inline constexpr std::string_view kNoGpuAvailable = "no GPU available: ";
// The reason in a build without CUDA, written once for the library and the command; where the
// reader can act on it, kRebuildWithCuda follows.
inline constexpr std::string_view kBuiltWithoutCuda = "kprof was built without CUDA";
inline constexpr std::string_view kRebuildWithCuda = "rebuild it with the CUDA toolkit";

class NoGpuError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "NoGpuError"; }
};

// Another tool holds CUPTI in this process (Nsight Systems, Nsight Compute, torch.profiler...).
class CuptiBusyError : public Error {
 public:
  CuptiBusyError(const std::string& message, std::string holder)
      : Error(message), holder_(std::move(holder)) {}
  const char* kind() const noexcept override { return "CuptiBusyError"; }
  const std::string& holder() const noexcept { return holder_; }

 private:
  std::string holder_;
};

// Another process profiles the hardware counters of the GPU (CUPTI_ERROR_HARDWARE_BUSY): a
// GPU's counters serve one process at a time, from its first pass until it disables them.
// Durations are not affected. Options::wait_for_counters waits for them instead.
class CountersBusyError : public CuptiBusyError {
 public:
  explicit CountersBusyError(const std::string& message, std::string holder = "another process")
      : CuptiBusyError(message, std::move(holder)) {}
  const char* kind() const noexcept override { return "CountersBusyError"; }
};

// A CUDA or CUPTI call failed in a way that has no more specific error.
class CudaError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "CudaError"; }
};

// A kernel faulted (an illegal memory access, a device-side assert...) and the CUDA context of
// the process is lost: every later CUDA call in it fails the same way. partial_results() holds
// what was measured before the fault; the process has to end before the GPU can be used again.
class GpuFaultError : public CudaError {
 public:
  using CudaError::CudaError;
  const char* kind() const noexcept override { return "GpuFaultError"; }
};

// An option value is valid but its capability is not available in this build.
class UnsupportedError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "UnsupportedError"; }
};

// The thermal guard could not keep the GPU within its temperature limits.
class ThermalControlError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "ThermalControlError"; }
};

// The GPU did not cool down to the guard's resume threshold within thermal_timeout
// (nsight-python's CoolingTimeoutError).
class CoolingTimeoutError : public ThermalControlError {
 public:
  using ThermalControlError::ThermalControlError;
  const char* kind() const noexcept override { return "CoolingTimeoutError"; }
};

// clock_control="base" could not lock (or restore) the SM clock: no NVML, no such device,
// or the GPU does not support it.
class ClockControlError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "ClockControlError"; }
};

// Locking clocks needs a permission this process lacks (root, or an administrator's
// `nvidia-smi` setting).
class ClockPermissionError : public ClockControlError {
 public:
  using ClockControlError::ClockControlError;
  const char* kind() const noexcept override { return "ClockPermissionError"; }
};

// Hardware counters cannot be read by this process (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
// Nsight Compute's ERR_NVGPUCTRPERM). Durations still work in the same process.
class CounterPermissionError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "CounterPermissionError"; }
};

// Ctrl-C (SIGINT) stopped a profile of a program that leaves SIGINT to its default action:
// partial_results() holds the runs measured before; a second Ctrl-C ends the program at once.
// In Python a Ctrl-C is the KeyboardInterrupt itself, with the same partial_results.
class InterruptError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "InterruptError"; }
};

// Reading a saved file failed: missing, malformed, or of an unknown version.
class FormatError : public Error {
 public:
  using Error::Error;
  const char* kind() const noexcept override { return "FormatError"; }
};

// The kind() of every class above, the base first: the names kprof.errors mirrors (there,
// InterruptError is Python's own KeyboardInterrupt).
std::span<const std::string_view> error_kinds();

// "a, b or c": joins valid choices for error messages.
std::string join_choices(const std::vector<std::string>& choices);

// The choice `given` most likely meant, for "did you mean ...?": one it is a prefix of (two
// characters at least), else the nearest within two edits; "" when none is that close.
std::string closest_choice(const std::string& given, const std::vector<std::string>& choices);

}  // namespace kprof
