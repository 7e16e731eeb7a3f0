// kprof's one CUPTI subscription: taken in Backend::start(), given back in stop().
//
// CUPTI allows one subscriber per process. Nsight Systems, Nsight Compute, cuda-gdb and
// torch.profiler (Kineto keeps its subscription until the process ends) may hold it; then
// subscribe() throws CuptiBusyError naming the holder and what to do.
#pragma once

#include <cupti.h>

#include <span>

namespace kprof::detail {

class CuptiSubscriber {
 public:
  CuptiSubscriber() = default;
  ~CuptiSubscriber() { unsubscribe(); }
  CuptiSubscriber(const CuptiSubscriber&) = delete;
  CuptiSubscriber& operator=(const CuptiSubscriber&) = delete;

  // Throws CuptiBusyError when another client holds CUPTI, CudaError for other failures.
  void subscribe(CUpti_CallbackFunc callback, void* userdata);
  // Enables `callback` for each cbid of `domain`. Throws CudaError.
  void enable(CUpti_CallbackDomain domain, std::span<const CUpti_CallbackId> cbids);
  // Disables the callbacks and unsubscribes; never throws, safe to call twice.
  void unsubscribe() noexcept;
  bool subscribed() const noexcept { return handle_ != nullptr; }

 private:
  CUpti_SubscriberHandle handle_ = nullptr;
};

}  // namespace kprof::detail
