// NVTX ranges in the domain "kprof", so Nsight Systems and Nsight Compute see kprof's regions.
// NVTX3 is header-only: without an attached tool every call returns at once.
#include <nvtx3/nvToolsExt.h>

#include "core/measure/gpu_layer.hpp"

namespace kprof::detail {
namespace {

nvtxDomainHandle_t kprof_domain() noexcept {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("kprof");
  return domain;
}

}  // namespace

void nvtx_push(const std::string& name) noexcept {
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name.c_str();
  nvtxDomainRangePushEx(kprof_domain(), &attributes);
}

void nvtx_pop() noexcept { nvtxDomainRangePop(kprof_domain()); }

}  // namespace kprof::detail
