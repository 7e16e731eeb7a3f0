// watch_module_loads() (core/measure/gpu_layer.hpp): the cubin of every module loaded goes to
// ModuleCode::keep, under the CRC CUPTI's SASS and PC-sampling records name it by. The module loads
// come through kprof's subscription held for the process (CuptiSubscriber::hold_for_process), which
// each later profile borrows.
#include <cupti.h>

#include "core/measure/gpu_layer.hpp"
#include "cuda/cupti/cupti_subscriber.hpp"
#include "cuda/cupti/module_code.hpp"

namespace kprof::detail {
namespace {

void CUPTIAPI on_module_loaded(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                               const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_MODULE_LOADED) return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  if (module == nullptr || module->pCubin == nullptr) return;
  // Nothing may leave a CUPTI callback: a module whose code cannot be kept is named when one of
  // its kernels is counted (no cubin kept).
  try {
    ModuleCode::keep(module->pCubin, module->cubinSize);
  } catch (...) {
  }
}

}  // namespace

void watch_module_loads() {
  CuptiSubscriber::hold_for_process(on_module_loaded, CUPTI_CBID_RESOURCE_MODULE_LOADED);
}

}  // namespace kprof::detail
