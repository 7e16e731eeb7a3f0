#include "cuda/cupti/launch_attribution.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "core/measure/region_tracker.hpp"
#include "cuda/cupti/copy_apis.hpp"
#include "cuda/cupti/launch_apis.hpp"
#include "cuda/device/driver_api.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// Per launching thread. A runtime launch nests a driver launch (cudaLaunchKernel ->
// cuLaunchKernel, same correlation id): the depth counter finds the outermost launch API, where
// the region is read once, and lets the nested driver callback reuse it.
struct ThreadLaunch {
  std::uint64_t session = 0;
  int depth = 0;
  RegionId region = kNoRegion;
  bool flush_wanted = false;  // a flush is due before this launch
  bool flush_handled = false;
  bool flushing = false;  // inside the flush kernel's own launch: no flush for it
  std::size_t logged = static_cast<std::size_t>(-1);  // this launch's place in the launch log
  CUcontext context = nullptr;   // the last context launched into, and whether it is the
  bool context_profiled = true;  // profiled device's (asked of CUPTI once per context)
  std::chrono::steady_clock::time_point entered;  // when the outermost launch API began
};

thread_local ThreadLaunch t_launch;

bool call_succeeded(CUpti_CallbackDomain domain, const CUpti_CallbackData& cb) {
  if (cb.functionReturnValue == nullptr) return true;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    return *static_cast<const CUresult*>(cb.functionReturnValue) == CUDA_SUCCESS;
  }
  return *static_cast<const int*>(cb.functionReturnValue) == 0;  // cudaError_t: cudaSuccess
}

std::string api_name(const CUpti_CallbackData& cb) {
  return cb.functionName != nullptr ? cb.functionName : "a launch API";
}

}  // namespace

void CUPTIAPI LaunchAttribution::callback(void* userdata, CUpti_CallbackDomain domain,
                                          CUpti_CallbackId cbid, const void* data) {
  auto* self = static_cast<LaunchAttribution*>(userdata);
  const auto& cb = *static_cast<const CUpti_CallbackData*>(data);
  if (self == nullptr) return;
  self->in_flight_.fetch_add(1, std::memory_order_acq_rel);
  struct Leave {
    std::atomic<int>& n;
    ~Leave() { n.fetch_sub(1, std::memory_order_acq_rel); }
  } leave{self->in_flight_};
  try {  // nothing may escape into CUPTI and the user's launch
    if (cb.callbackSite == CUPTI_API_ENTER) {
      self->on_enter(domain, cbid, cb);
    } else if (cb.callbackSite == CUPTI_API_EXIT) {
      self->on_exit(domain, cb);
    }
  } catch (...) {
    // No allocation here: rethrow_problem() words a problem without a message.
    self->has_problem_.store(true, std::memory_order_release);
  }
}

void LaunchAttribution::on_enter(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const CUpti_CallbackData& cb) {
  ThreadLaunch& t = t_launch;
  if (t.session != session_) {
    t = ThreadLaunch{};
    t.session = session_;
  }
  if (t.depth++ == 0) {
    t.entered = std::chrono::steady_clock::now();
    t.region = RegionTracker::instance().attribute_launch();
    if (t.region != kNoRegion && !on_profiled_device(cb.context, cb)) t.region = kNoRegion;
    t.flush_handled = false;
    // A copy or memset runs on the copy engines or as the driver's own work: cache control
    // flushes before kernels.
    t.flush_wanted = flush_ != nullptr && flushing_.load(std::memory_order_acquire) &&
                     !is_copy_api(domain, cbid);
    t.logged = logging_.load(std::memory_order_acquire) ? log_launch(t.region, domain, cbid, cb)
                                                        : static_cast<std::size_t>(-1);
    if (t.region == kNoRegion) return;  // outside every region: not measured, not flushed
    try {
      correlations_.insert(cb.correlationId, t.region);
    } catch (...) {
      note_problem(false, "out of memory while recording a launch");
    }
  }
  if (t.region != kNoRegion && t.flush_wanted && !t.flush_handled && !t.flushing &&
      domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    flush_before(cbid, cb);
  }
}

void LaunchAttribution::flush_before(CUpti_CallbackId cbid, const CUpti_CallbackData& cb) {
  CUstream stream = nullptr;
  if (!driver_launch_stream(cbid, cb.functionParams, &stream)) return;
  ThreadLaunch& t = t_launch;
  t.flushing = true;
  const L2Flush::Outcome outcome = flush_->before_launch(cb.context, stream, pause_);
  t.flushing = false;
  switch (outcome) {
    case L2Flush::Outcome::flushed:
      // The flush kernel runs first: in the log it comes before the launch it precedes.
      if (t.logged != static_cast<std::size_t>(-1)) log_flush(t.logged);
      t.flush_handled = true;
      return;
    case L2Flush::Outcome::flushed_unprofiled:  // no range: not in the log
    case L2Flush::Outcome::capturing:
      t.flush_handled = true;
      return;
    case L2Flush::Outcome::other_context:
      return;  // reported as a missed flush when the launch succeeds
    case L2Flush::Outcome::failed:
      t.flush_handled = true;
      note_problem(true, std::string("the L2 flush kernel (before a measured kernel, "
                                     "cache_control=all) could not be launched: ") +
                             driver_error_name(flush_->last_error()));
      return;
  }
}

void LaunchAttribution::on_exit(CUpti_CallbackDomain domain, const CUpti_CallbackData& cb) {
  ThreadLaunch& t = t_launch;
  if (t.session != session_ || t.depth == 0) return;  // began before this subscription
  if (--t.depth != 0) return;
  launch_ns_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - t.entered)
                           .count(),
                       std::memory_order_relaxed);
  // A measured kernel that ran with a warm L2 under cache_control=all would be a wrong number
  // that looks right: say so instead. A failed launch ran nothing; the user sees its error.
  if (t.region != kNoRegion && t.flush_wanted && !t.flush_handled && call_succeeded(domain, cb)) {
    note_problem(false,
                 "cache_control=all: no L2 flush could be enqueued before a kernel "
                 "launched through " +
                     api_name(cb) +
                     " (no driver launch on the profiled device's context was seen); "
                     "profile with cache_control=none or launch on the current device");
  }
  t.region = kNoRegion;
}

// kprof measures one device per profile (its range profiler, L2 flush and clocks are that
// device's): a kernel of a region launched on another is refused rather than mixed in.
bool LaunchAttribution::on_profiled_device(CUcontext context,
                                           const CUpti_CallbackData& cb) noexcept {
  ThreadLaunch& t = t_launch;
  if (device_ < 0 || context == nullptr) return true;
  if (context != t.context) {
    std::uint32_t id = 0;
    t.context = context;
    t.context_profiled =
        cuptiGetDeviceId(context, &id) != CUPTI_SUCCESS || static_cast<int>(id) == device_;
    if (!t.context_profiled) {
      note_problem(
          false, "a kernel (" + std::string(cb.symbolName != nullptr ? cb.symbolName : "unnamed") +
                     ") was launched inside an annotation on CUDA device " + std::to_string(id) +
                     ", while kprof profiles device " + std::to_string(device_) +
                     " (the current device when the profile began): profile each "
                     "device in a profile of its own, with it current "
                     "(torch.cuda.set_device / cudaSetDevice) before the call");
    }
  }
  return t.context_profiled;
}

void LaunchAttribution::note_problem(bool cuda, std::string message) noexcept {
  try {
    std::lock_guard<std::mutex> lock(problem_mutex_);
    if (problem_count_++ == 0) problem_ = Problem{cuda, std::move(message)};
    has_problem_.store(true, std::memory_order_release);
  } catch (...) {
    has_problem_.store(true, std::memory_order_release);
  }
}

std::size_t LaunchAttribution::log_launch(RegionId region, CUpti_CallbackDomain domain,
                                          CUpti_CallbackId cbid,
                                          const CUpti_CallbackData& cb) noexcept {
  try {
    Launch launch{region, cb.symbolName != nullptr ? cb.symbolName : "",
                  is_graph_launch(domain, cbid), false, cb.correlationId};
    std::lock_guard lock(launches_mutex_);
    launches_.push_back(std::move(launch));
    return launches_.size() - 1;
  } catch (...) {
    note_problem(false, "out of memory while recording a launch");
    return static_cast<std::size_t>(-1);
  }
}

void LaunchAttribution::log_flush(std::size_t before) noexcept {
  try {
    std::lock_guard lock(launches_mutex_);
    const std::size_t at = std::min(before, launches_.size());
    launches_.insert(launches_.begin() + static_cast<std::ptrdiff_t>(at),
                     Launch{kNoRegion, "", false, true});
  } catch (...) {
    note_problem(false, "out of memory while recording a launch");
  }
}

std::vector<LaunchAttribution::Launch> LaunchAttribution::take_launches() {
  std::lock_guard lock(launches_mutex_);
  return std::exchange(launches_, {});
}

std::size_t LaunchAttribution::launches_logged() const {
  std::lock_guard lock(launches_mutex_);
  return launches_.size();
}

void LaunchAttribution::rethrow_problem() {
  if (!has_problem_.load(std::memory_order_acquire)) return;
  Problem problem;
  std::uint64_t count = 0;
  {
    std::lock_guard<std::mutex> lock(problem_mutex_);
    problem = std::move(problem_);
    count = problem_count_;
    problem_ = Problem{};
    problem_count_ = 0;
    has_problem_.store(false, std::memory_order_release);
  }
  if (problem.message.empty()) problem.message = "kprof's launch callback failed (out of memory?)";
  if (count > 1) problem.message += " (and " + std::to_string(count - 1) + " more like it)";
  if (problem.cuda) throw CudaError(problem.message);
  throw MeasurementError(problem.message);
}

void LaunchAttribution::wait_idle() const noexcept {
  while (in_flight_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
}

void LaunchAttribution::reset() noexcept {
  correlations_.clear();
  {
    std::lock_guard lock(launches_mutex_);
    launches_.clear();
  }
  std::lock_guard<std::mutex> lock(problem_mutex_);
  problem_ = Problem{};
  problem_count_ = 0;
  has_problem_.store(false, std::memory_order_release);
}

}  // namespace kprof::detail
