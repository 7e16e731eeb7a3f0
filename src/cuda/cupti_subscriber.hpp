// A CUPTI subscription of kprof's: a profile's, taken in Backend::start() and given back in
// stop(), and set:flop's watcher of module loads (cuda/module_watcher.cpp).
//
// CUPTI before 13.5 allows one subscriber per process; 13.5 lets subscribers share it when each
// asks to. Nsight Systems, Nsight Compute, cuda-gdb and
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
  // `name` is what CUPTI tells a client refused while this subscription is held.
  void subscribe(CUpti_CallbackFunc callback, void* userdata, const char* name = "kprof");
  // Whether the loaded CUPTI lets subscribers share it (13.5 and later).
  static bool can_share();
  // From now on, kprof's subscriptions ask to share CUPTI where it can (set:flop's watcher of
  // module loads, which stays subscribed beside each profile's). Until then they ask for CUPTI
  // alone, as before 13.5: a profile that counts no FLOP is subscribed as it always was.
  static void share_from_now();
  // Enables `callback` for each cbid of `domain`. Throws CudaError.
  void enable(CUpti_CallbackDomain domain, std::span<const CUpti_CallbackId> cbids);
  // Disables the callbacks and unsubscribes; never throws, safe to call twice.
  void unsubscribe() noexcept;
  bool subscribed() const noexcept { return handle_ != nullptr; }

 private:
  CUpti_SubscriberHandle handle_ = nullptr;
};

}  // namespace kprof::detail
