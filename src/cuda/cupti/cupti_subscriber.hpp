// kprof's CUPTI subscription: a profile's, taken in Backend::start() and given back in stop(),
// or borrowed from the one held for the process once set:flop needs it.
//
// CUPTI allows one subscriber per process. Nsight Systems, Nsight Compute, cuda-gdb and
// torch.profiler (Kineto keeps its subscription until the process ends) may hold it; then
// subscribe() throws CuptiBusyError naming the holder and what to do.
//
// set:flop needs the code of every module loaded, which CUDA hands over only at the load:
// hold_for_process() subscribes kprof for the rest of the process, handing module loads to a
// watcher (cuda/cupti/module_watcher.cpp), and from then on each profile's subscribe() borrows that
// subscription instead of taking one, so that no second subscriber is needed.
#pragma once

#include <cupti.h>

#include <memory>
#include <span>

namespace kprof::detail {

struct CuptiBorrower;  // a profile's callback on the process subscription (cupti_subscriber.cpp)

class CuptiSubscriber {
 public:
  CuptiSubscriber();
  ~CuptiSubscriber();  // unsubscribes
  CuptiSubscriber(const CuptiSubscriber&) = delete;
  CuptiSubscriber& operator=(const CuptiSubscriber&) = delete;

  // Throws CuptiBusyError when another client (or another kprof profile) holds CUPTI, CudaError
  // for other failures. Once the process subscription is held, borrows it: `callback` hears the
  // runtime and driver callbacks enabled until unsubscribe().
  void subscribe(CUpti_CallbackFunc callback, void* userdata);
  // Enables `callback` for each cbid of `domain`: the runtime or the driver API (CudaError for
  // another domain, or when CUPTI refuses).
  void enable(CUpti_CallbackDomain domain, std::span<const CUpti_CallbackId> cbids);
  // Disables the callbacks and unsubscribes, or gives a borrowed subscription back once no
  // callback on another thread still runs the borrower's; never throws, safe to call twice.
  void unsubscribe() noexcept;
  bool subscribed() const noexcept { return handle_ != nullptr; }

  // Subscribes kprof for the rest of the process, once: `on_resource` hears the resource
  // domain's `resource_cbid` (module loads) from now on, beside whatever a profile borrowing
  // the subscription enables. While it is held, another CUPTI client is refused. Throws as
  // subscribe() does, and CuptiBusyError while a profile holds a subscription of its own; a
  // call that failed may be made again.
  static void hold_for_process(CUpti_CallbackFunc on_resource, CUpti_CallbackId resource_cbid);

 private:
  CUpti_SubscriberHandle handle_ = nullptr;
  std::unique_ptr<CuptiBorrower> borrower_;  // set while handle_ is the process subscription's
};

}  // namespace kprof::detail
