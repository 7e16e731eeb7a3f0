#include "cuda/cupti_subscriber.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/cupti_check.hpp"
#include "cuda/range_profiler.hpp"
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

#if CUPTI_API_VERSION >= 130000
// CUpti_SubscriberParams as CUPTI 13.5 lays it out: the 13.0 header ends before
// allowMultipleSubscribers. A CUPTI older than the field reads the size of the struct it knows.
struct SubscriberParams135 {
  std::size_t structSize;
  const char* subscriberName;
  char* oldSubscriberName;
  std::size_t oldSubscriberSize;
  std::uint8_t allowMultipleSubscribers;
};
constexpr std::uint32_t kMultipleSubscribersCupti = 130500;
#endif

std::atomic<bool> sharing{false};  // share_from_now() was called

}  // namespace

bool CuptiSubscriber::can_share() {
#if CUPTI_API_VERSION >= 130000
  return cupti_runtime_version() >= kMultipleSubscribersCupti;
#else
  return false;
#endif
}

void CuptiSubscriber::share_from_now() { sharing = true; }

void CuptiSubscriber::subscribe(CUpti_CallbackFunc callback, void* userdata, const char* name) {
  unsubscribe();
#if CUPTI_API_VERSION < 130000
  // CUPTI 12 names no holder of the subscription.
  CUpti_SubscriberHandle handle = nullptr;
  const CUptiResult result = cuptiSubscribe(&handle, callback, userdata);
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) throw busy_error("");
  check_cupti(result, "cuptiSubscribe");
  handle_ = handle;
#else
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 4] = {};
  // Once set:flop's watcher of module loads asked (cuda/module_watcher.cpp), and where CUPTI
  // lets subscribers share it (13.5), kprof's subscriptions do. A client that subscribes the
  // legacy way is still refused while one is held, as before.
  SubscriberParams135 params{};
  const bool share = sharing && can_share();
  params.structSize = share ? offsetof(SubscriberParams135, allowMultipleSubscribers) + 1
                            : CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = name;
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof(holder);
  params.allowMultipleSubscribers = share ? 1 : 0;
  CUpti_SubscriberHandle handle = nullptr;
  CUptiResult result = cuptiSubscribe_v2(&handle, callback, userdata,
                                         reinterpret_cast<CUpti_SubscriberParams*>(&params));
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    holder[sizeof(holder) - 1] = '\0';
    throw busy_error(holder);
  }
  check_cupti(result, "cuptiSubscribe_v2");
  handle_ = handle;
#endif
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
  // Unsubscribing disables every callback of the subscriber as well.
  (void)cuptiEnableDomain(0, handle_, CUPTI_CB_DOMAIN_RUNTIME_API);
  (void)cuptiEnableDomain(0, handle_, CUPTI_CB_DOMAIN_DRIVER_API);
  (void)cuptiUnsubscribe(handle_);
  handle_ = nullptr;
}

}  // namespace kprof::detail
