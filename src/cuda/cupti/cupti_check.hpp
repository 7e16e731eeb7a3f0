// CUPTI errors -> CudaError naming the call, the CUPTI error name and its message.
#pragma once

#include <cupti.h>

#include <string>

#include "kprof/errors.hpp"

namespace kprof::detail {

// "CUPTI_ERROR_NOT_INITIALIZED (15): CUPTI could not be initialized".
inline std::string cupti_error_text(CUptiResult result) {
  const char* name = nullptr;
  const char* message = nullptr;
  if (cuptiGetResultString(result, &name) != CUPTI_SUCCESS || name == nullptr) name = "?";
  if (cuptiGetErrorMessage(result, &message) != CUPTI_SUCCESS || message == nullptr) message = "";
  std::string text = std::string(name) + " (" + std::to_string(static_cast<int>(result)) + ")";
  if (*message != '\0') text += std::string(": ") + message;
  return text;
}

// Throws CudaError when `result` is not CUPTI_SUCCESS.
inline void check_cupti(CUptiResult result, const char* call) {
  if (result == CUPTI_SUCCESS) return;
  throw CudaError(std::string(call) + " failed: " + cupti_error_text(result));
}

}  // namespace kprof::detail
