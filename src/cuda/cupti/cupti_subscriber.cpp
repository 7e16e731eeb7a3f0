#include "cuda/cupti/cupti_subscriber.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cuda/cupti/cupti_check.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

struct CuptiBorrower {
  CUpti_CallbackFunc callback = nullptr;
  void* data = nullptr;
};

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

// The process subscription (hold_for_process) and the profile borrowing it. CUPTI may call on
// any thread while a borrower comes and goes: the borrower's callback and data are published as
// one pointer, and a borrower leaving waits until no callback holds it any more.
struct ProcessSubscription {
  std::mutex mutex;  // taking a subscription, borrowing one, giving one back
  CUpti_SubscriberHandle handle = nullptr;
  std::atomic<CUpti_CallbackFunc> on_resource{nullptr};  // set before its callbacks are enabled
  bool profile_subscribed = false;  // a profile holds a subscription of its own
  std::atomic<const CuptiBorrower*> borrower{nullptr};
  std::atomic<int> in_flight{0};  // callbacks that may hold `borrower`
};

ProcessSubscription& process_subscription() {
  static auto* held = new ProcessSubscription;  // never destroyed: held until the process ends
  return *held;
}

void CUPTIAPI dispatch(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  ProcessSubscription& p = process_subscription();
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (CUpti_CallbackFunc on_resource = p.on_resource.load())
      on_resource(nullptr, domain, id, data);
    return;
  }
  ++p.in_flight;  // before the load: a borrower leaving sees it, or this sees none
  if (const CuptiBorrower* b = p.borrower.load()) b->callback(b->data, domain, id, data);
  --p.in_flight;
}

}  // namespace

CuptiSubscriber::CuptiSubscriber() = default;
CuptiSubscriber::~CuptiSubscriber() { unsubscribe(); }

void CuptiSubscriber::hold_for_process(CUpti_CallbackFunc on_resource,
                                       CUpti_CallbackId resource_cbid) {
  ProcessSubscription& p = process_subscription();
  std::lock_guard lock(p.mutex);
  if (p.handle != nullptr) return;
  if (p.profile_subscribed)
    throw CuptiBusyError(
        "kprof cannot keep the code of modules (set:flop) while a profile holds CUPTI: it starts "
        "with the next profile that asks for set:flop",
        "kprof");
  // Set before the callback is enabled, so that a module another thread loads meanwhile is kept
  // (dispatch hears nothing unless the subscription below is taken).
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
  std::lock_guard lock(p.mutex);
  if (p.handle == nullptr) {
    handle_ = take_subscription(callback, userdata);
    p.profile_subscribed = true;
    return;
  }
  // One profile at a time holds kprof's engine (RegionTracker::begin_profile).
  if (p.borrower.load() != nullptr)
    throw CuptiBusyError("kprof cannot subscribe to CUPTI: another kprof profile holds it",
                         "kprof");
  borrower_ = std::make_unique<CuptiBorrower>(CuptiBorrower{callback, userdata});
  p.borrower = borrower_.get();
  handle_ = p.handle;
}

void CuptiSubscriber::enable(CUpti_CallbackDomain domain, std::span<const CUpti_CallbackId> cbids) {
  // A borrowed subscription keeps its resource callbacks after the profile: the profile's are
  // the runtime's and the driver's, which unsubscribe() turns off.
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API)
    throw CudaError("kprof's profile subscribes to CUPTI's runtime and driver API callbacks only");
  for (CUpti_CallbackId cbid : cbids) {
    CUptiResult result = cuptiEnableCallback(1, handle_, domain, cbid);
    if (result != CUPTI_SUCCESS) {
      const char* name = domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver" : "runtime";
      throw CudaError("cuptiEnableCallback(" + std::string(name) + " cbid " + std::to_string(cbid) +
                      ") failed: " + cupti_error_text(result));
    }
  }
}

void CuptiSubscriber::unsubscribe() noexcept {
  if (handle_ == nullptr) return;
  (void)cuptiEnableDomain(0, handle_, CUPTI_CB_DOMAIN_RUNTIME_API);
  (void)cuptiEnableDomain(0, handle_, CUPTI_CB_DOMAIN_DRIVER_API);
  ProcessSubscription& p = process_subscription();
  std::lock_guard lock(p.mutex);
  if (borrower_) {  // the process keeps the subscription, and its module loads
    p.borrower = nullptr;
    while (p.in_flight.load() != 0) std::this_thread::yield();
    borrower_.reset();
  } else {
    // Unsubscribing disables every callback of the subscriber as well.
    (void)cuptiUnsubscribe(handle_);
    p.profile_subscribed = false;
  }
  handle_ = nullptr;
}

}  // namespace kprof::detail
