// Facts about a device and the host, shared by query_system() and Backend::describe().
#pragma once

#include <string>

#include "kprof/device.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

// Name, PCI bus id, compute capability, SMs, memory, L2 and rated clocks of CUDA device
// `ordinal`. Throws NoGpuError / CudaError.
DeviceInfo read_device_info(int ordinal);

// SessionInfo of a profile on the current device by `backend`, which needs `passes` passes per
// measurement: the device's and the process's facts. The options it runs with are written by
// the engine (describe_options). Throws NoGpuError / CudaError.
SessionInfo describe_session(const std::string& backend, int passes);

// gethostname(), or "unknown".
std::string host_name();

// Now, as "2026-11-30T05:58:00Z".
std::string utc_now_iso8601();

}  // namespace kprof::detail
