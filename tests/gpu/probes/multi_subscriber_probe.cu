// Whether CUPTI lets two subscribers share it (cuptiSubscribe_v2's allowMultipleSubscribers,
// CUPTI 13.5's docs), as a watcher of module loads from the moment kprof is imported would need
// beside kprof's own subscription during a profile; and whether a legacy cuptiSubscribe (torch's
// Kineto, kprof today) still works beside them. Built and run by hand:
//   nvcc -O2 -arch=sm_90 tests/gpu/probes/multi_subscriber_probe.cu -I tests/gpu/probes -lcupti \
//     -o probe && ./probe
// (with LD_PRELOAD/LD_LIBRARY_PATH naming a newer libcupti.so.13 to try another CUPTI).
#include <cuda_runtime.h>
#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

// CUpti_SubscriberParams as CUPTI 13.5 lays it out: the toolkit's 13.0 header ends before
// allowMultipleSubscribers.
struct SubscriberParams135 {
  size_t structSize;
  const char* subscriberName;
  char* oldSubscriberName;
  size_t oldSubscriberSize;
  uint8_t allowMultipleSubscribers;
};

__global__ void probe_kernel(float* out) { out[threadIdx.x] = threadIdx.x; }

struct Seen {
  int modules = 0;
  size_t cubin_bytes = 0;
  int launches = 0;
};

void CUPTIAPI on_module(void* user, CUpti_CallbackDomain, CUpti_CallbackId id, const void* data) {
  if (id != CUPTI_CBID_RESOURCE_MODULE_LOADED) return;
  auto* seen = static_cast<Seen*>(user);
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  ++seen->modules;
  seen->cubin_bytes += module->cubinSize;
}

void CUPTIAPI on_launch(void* user, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER)
    ++static_cast<Seen*>(user)->launches;
}

const char* said(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s != nullptr ? s : "?";
}

CUptiResult subscribe_v2(CUpti_SubscriberHandle* handle, CUpti_CallbackFunc callback, void* user,
                         const char* name, char* old_name, size_t old_size) {
  SubscriberParams135 p{};
  p.structSize = offsetof(SubscriberParams135, allowMultipleSubscribers) + 1;
  p.subscriberName = name;
  p.oldSubscriberName = old_name;
  p.oldSubscriberSize = old_size;
  p.allowMultipleSubscribers = 1;
  return cuptiSubscribe_v2(handle, callback, user, reinterpret_cast<CUpti_SubscriberParams*>(&p));
}

int main() {
  uint32_t version = 0;
  cuptiGetVersion(&version);
  std::printf("CUPTI API version %u\n", version);
  Seen watcher, profiler, legacy;
  char old_name[128] = {};
  CUpti_SubscriberHandle a = nullptr, b = nullptr, c = nullptr;
  CUptiResult r =
      subscribe_v2(&a, on_module, &watcher, "module watcher", old_name, sizeof old_name);
  std::printf("watcher (v2, multiple allowed): %s\n", said(r));
  if (r == CUPTI_SUCCESS)
    std::printf("  enable MODULE_LOADED: %s\n",
                said(cuptiEnableCallback(1, a, CUPTI_CB_DOMAIN_RESOURCE,
                                         CUPTI_CBID_RESOURCE_MODULE_LOADED)));
  r = subscribe_v2(&b, on_launch, &profiler, "profile", old_name, sizeof old_name);
  std::printf("profiler (v2, multiple allowed): %s (old subscriber '%s')\n", said(r), old_name);
  if (r == CUPTI_SUCCESS)
    std::printf("  enable cudaLaunchKernel: %s\n",
                said(cuptiEnableCallback(1, b, CUPTI_CB_DOMAIN_RUNTIME_API,
                                         CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)));
  r = cuptiSubscribe(&c, on_launch, &legacy);
  std::printf("legacy cuptiSubscribe beside them: %s\n", said(r));
  if (r == CUPTI_SUCCESS)
    cuptiEnableCallback(1, c, CUPTI_CB_DOMAIN_RUNTIME_API,
                        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  float* out = nullptr;
  cudaMalloc(&out, 256 * sizeof(float));
  probe_kernel<<<1, 256>>>(out);
  std::printf("kernel: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  std::printf("watcher saw %d module(s), %zu bytes of cubin; profiler %d launch(es); legacy %d\n",
              watcher.modules, watcher.cubin_bytes, profiler.launches, legacy.launches);
  for (CUpti_SubscriberHandle h : {c, b, a})
    if (h != nullptr) cuptiUnsubscribe(h);
  cudaFree(out);
  return 0;
}
