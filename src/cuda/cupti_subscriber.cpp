#include "cuda/cupti_subscriber.hpp"

#include <atomic>
#include <mutex>
#include <string>

#include "cuda/cupti_check.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

CuptiBusyError busy_error(const char* holder_buffer) {
  std::string holder = holder_buffer;
  std::string who = holder.empty() ? "another CUPTI client" : "'" + holder + "'";
  return CuptiBusyError(
      "kprof cannot subscribe to CUPTI: " + who +
          " already holds this process's only CUPTI subscription "
          "(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED). If it is torch.profiler, which "
          "keeps its subscription until the process ends, run kprof before torch.profiler or "
          "in a fresh process; if Nsight Systems, Nsight Compute or cuda-gdb is attached, run "
          "kprof without it.",
      holder);
}

// Subscribes `callback`, naming kprof to a client refused while it is held.
CUpti_SubscriberHandle take_subscription(CUpti_CallbackFunc callback, void* userdata) {
#if CUPTI_API_VERSION < 130000
  // CUPTI 12 names no holder of the subscription.
  CUpti_SubscriberHandle handle = nullptr;
  const CUptiResult result = cuptiSubscribe(&handle, callback, userdata);
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) throw busy_error("");
  check_cupti(result, "cuptiSubscribe");
  return handle;
#else
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 4] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "kprof";
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof(holder);
  CUpti_SubscriberHandle handle = nullptr;
  CUptiResult result = cuptiSubscribe_v2(&handle, callback, userdata, &params);
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    holder[sizeof(holder) - 1] = '\0';
    throw busy_error(holder);
  }
  check_cupti(result, "cuptiSubscribe_v2");
  return handle;
#endif
}

// The process subscription (hold_for_process) and the profile borrowing it. The borrower's
// callback and data are swapped while CUPTI may call on other threads: data is set before the
// callback and the callback cleared first, and the borrower disables its domains before it
// goes.
struct ProcessSubscription {
  std::mutex mutex;  // taking it, and borrowing
  CUpti_SubscriberHandle handle = nullptr;
  CUpti_CallbackFunc on_resource = nullptr;
  std::atomic<CUpti_CallbackFunc> borrower{nullptr};
  std::atomic<void*> borrower_data{nullptr};
};

ProcessSubscription& process_subscription() {
  static auto* held = new ProcessSubscription;  // never destroyed: held until the process ends
  return *held;
}

void CUPTIAPI dispatch(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  ProcessSubscription& p = process_subscription();
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (p.on_resource != nullptr) p.on_resource(nullptr, domain, id, data);
    return;
  }
  if (CUpti_CallbackFunc borrower = p.borrower.load())
    borrower(p.borrower_data.load(), domain, id, data);
}

}  // namespace

void CuptiSubscriber::hold_for_process(CUpti_CallbackFunc on_resource,
                                       CUpti_CallbackId resource_cbid) {
  ProcessSubscription& p = process_subscription();
  std::lock_guard lock(p.mutex);
  if (p.handle != nullptr) return;
  p.on_resource = on_resource;
  CUpti_SubscriberHandle handle = take_subscription(dispatch, nullptr);
  const CUptiResult result =
      cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_RESOURCE, resource_cbid);
  if (result != CUPTI_SUCCESS) {
    (void)cuptiUnsubscribe(handle);
    throw CudaError("cuptiEnableCallback(resource cbid " + std::to_string(resource_cbid) +
                    ") failed: " + cupti_error_text(result));
  }
  p.handle = handle;
}

void CuptiSubscriber::subscribe(CUpti_CallbackFunc callback, void* userdata) {
  unsubscribe();
  ProcessSubscription& p = process_subscription();
  {
    std::lock_guard lock(p.mutex);
    if (p.handle != nullptr) {
      // One profile at a time holds kprof's engine (RegionTracker::check_no_profile).
      p.borrower_data = userdata;
      p.borrower = callback;
      handle_ = p.handle;
      borrowed_ = true;
      return;
    }
  }
  handle_ = take_subscription(callback, userdata);
}

void CuptiSubscriber::enable(CUpti_CallbackDomain domain, std::span<const CUpti_CallbackId> cbids) {
  for (CUpti_CallbackId cbid : cbids) {
    CUptiResult result = cuptiEnableCallback(1, handle_, domain, cbid);
    if (result != CUPTI_SUCCESS) {
      const char* name = domain == CUPTI_CB_DOMAIN_DRIVER_API    ? "driver"
                         : domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime"
                                                                 : "resource";
      throw CudaError("cuptiEnableCallback(" + std::string(name) + " cbid " + std::to_string(cbid) +
                      ") failed: " + cupti_error_text(result));
    }
  }
}

void CuptiSubscriber::unsubscribe() noexcept {
  if (handle_ == nullptr) return;
  (void)cuptiEnableDomain(0, handle_, CUPTI_CB_DOMAIN_RUNTIME_API);
  (void)cuptiEnableDomain(0, handle_, CUPTI_CB_DOMAIN_DRIVER_API);
  if (borrowed_) {  // the process keeps the subscription, and its module loads
    ProcessSubscription& p = process_subscription();
    p.borrower = nullptr;
    p.borrower_data = nullptr;
    borrowed_ = false;
  } else {
    // Unsubscribing disables every callback of the subscriber as well.
    (void)cuptiUnsubscribe(handle_);
  }
  handle_ = nullptr;
}

}  // namespace kprof::detail
