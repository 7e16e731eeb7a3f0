// watch_module_loads() (core/gpu_layer.hpp): the cubin of every module loaded goes to
// SassCounter::add_module, under the CRC CUPTI's SASS records name it by.
#include <cupti.h>

#include <array>
#include <memory>
#include <mutex>
#include <string>

#include "core/gpu_layer.hpp"
#include "cuda/cupti_subscriber.hpp"
#include "cuda/sass_counter.hpp"
#include "kprof/errors.hpp"

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
    SassCounter::add_module(module->pCubin, module->cubinSize);
  } catch (...) {
  }
}

}  // namespace

void watch_module_loads() {
  static std::mutex mutex;
  // Never destroyed: the subscription lasts as long as the process, as the cubins it keeps.
  static CuptiSubscriber* watcher = nullptr;
  std::lock_guard lock(mutex);
  if (watcher != nullptr) return;
  if (const std::string why = flop_counting_unavailable(); !why.empty())
    throw UnsupportedError(why);
  CuptiSubscriber::share_from_now();
  auto subscriber = std::make_unique<CuptiSubscriber>();
  subscriber->subscribe(on_module_loaded, nullptr, "kprof (set:flop's module watcher)");
  const std::array<CUpti_CallbackId, 1> loaded = {CUPTI_CBID_RESOURCE_MODULE_LOADED};
  subscriber->enable(CUPTI_CB_DOMAIN_RESOURCE, loaded);
  watcher = subscriber.release();
}

}  // namespace kprof::detail
