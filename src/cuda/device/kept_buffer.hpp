// Device buffers kprof keeps for the process's life, one per context and use: making and freeing
// them on every profile cost a one-kernel profile a large part of its fixed cost (cudaFree
// synchronizes the device; the L2 flush buffer alone took ~0.8 ms on the H200). The memory stays
// with the process, as a framework's caching allocator keeps its blocks.
#pragma once

#include <cuda.h>

#include <cstddef>

#include "cuda/device/driver_api.hpp"

namespace kprof::detail {

enum class KeptUse { l2_flush, clock_probe };

// A zeroed buffer of `bytes` in `context` for `use`, made by the first caller and handed out
// again while it is still the very allocation kprof made: cudaDeviceReset frees it, and another
// allocation may then take its address. `context` must be current. Throws CudaError.
CUdeviceptr kept_buffer(const DriverApi& driver, CUcontext context, KeptUse use, std::size_t bytes);

}  // namespace kprof::detail
