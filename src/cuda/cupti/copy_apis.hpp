// The memory copy and memset APIs kprof watches for durations of copies in a region.
#pragma once

#include <cupti.h>

#include <span>

namespace kprof::detail {

// Every driver API that copies or sets memory (cuMemcpy*, cuMemset*), _ptds/_ptsz included.
std::span<const CUpti_CallbackId> driver_copy_cbids() noexcept;

// Whether `cbid` of `domain` is one of them: a copy needs no L2 flush before it.
bool is_copy_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) noexcept;

}  // namespace kprof::detail
