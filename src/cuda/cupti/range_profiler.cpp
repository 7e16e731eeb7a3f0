#include "cuda/cupti/range_profiler.hpp"

#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include "core/measure/gpu_layer.hpp"
#include "core/metrics/metric_catalog.hpp"
#include "cuda/cupti/cupti_check.hpp"
#include "cuda/device/cuda_check.hpp"
#include "cuda/device/driver_api.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// Adds the wall time of its scope to a cost.
class Timed {
 public:
  explicit Timed(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~Timed() {
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

// CUPTI 13.4 added `cacheControlMode` to the Enable parameters: the range profiler resets the
// L2 before every pass, which kernel replay needs for the passes after the first (CUPTI
// restores the kernel's memory before them, and kprof cannot flush there). kprof builds against
// CUPTI 13.0 headers, which lack the field: the 13.4 layout is spelled out here, and the
// field is passed only to a CUPTI that reads it.
constexpr std::uint32_t kCacheControlCupti = 130400;
#if CUPTI_API_VERSION >= 130400
using EnableParams = CUpti_RangeProfiler_Enable_Params;
#else
struct EnableParams {
  std::size_t structSize;
  void* pPriv;
  CUcontext ctx;
  CUpti_RangeProfiler_Object* pRangeProfilerObject;
  std::int32_t cacheControlMode;  // CUpti_CacheControl_Mode; 1: CUPTI_CACHE_CONTROL_MODE_ALL
};
#endif
constexpr std::size_t kEnableSize13_0 =
    offsetof(EnableParams, pRangeProfilerObject) + sizeof(CUpti_RangeProfiler_Object*);
constexpr std::size_t kEnableSizeCacheControl =
    offsetof(EnableParams, cacheControlMode) + sizeof(EnableParams::cacheControlMode);

}  // namespace

std::uint32_t cupti_runtime_version() {
  std::uint32_t version = 0;
  return cuptiGetVersion(&version) == CUPTI_SUCCESS ? version : 0;
}

void initialize_profiler() {
  static std::once_flag once;
  static CUptiResult result = CUPTI_SUCCESS;
  std::call_once(once, [] {
    auto p = cupti_params<CUpti_Profiler_Initialize_Params>(
        CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    result = cuptiProfilerInitialize(&p);
  });
  check_range_profiler(result, "cuptiProfilerInitialize");
}

namespace {

// Makes `call`, a CUPTI call that needs the GPU's counters, until another process no longer
// holds them or the profile's wait is spent (CounterWait); adds the time waited to `waited_s`.
template <class Call>
void take_counters(CounterWait& wait, const char* name, double& waited_s, Call call) {
  const double before = wait.waited_s();
  wait.take(
      [&] {
        const CUptiResult result = call();
        if (result == CUPTI_ERROR_HARDWARE_BUSY) return false;
        check_range_profiler(result, name);
        return true;
      },
      current_counter_gpu(), name);
  waited_s += wait.waited_s() - before;
}

// The first call that needs the GPU's counters free: on the H200 (CUPTI 13.0, driver 580) the
// image is CUPTI_ERROR_HARDWARE_BUSY while another process's range profiler has started a pass
// and not yet been disabled, or reads its own image; its size, Enable and SetConfig never are.
std::vector<std::uint8_t> counter_availability(CUcontext context, CounterWait& wait,
                                               double& waited_s) {
  auto p = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  p.ctx = context;
  check_range_profiler(cuptiProfilerGetCounterAvailability(&p),
                       "cuptiProfilerGetCounterAvailability");
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  take_counters(wait, "cuptiProfilerGetCounterAvailability", waited_s,
                [&p] { return cuptiProfilerGetCounterAvailability(&p); });
  return image;
}

CUcontext current_context() {
  check_cuda(cudaFree(nullptr), "cudaFree(0)");  // creates or binds the primary context
  CUcontext context = nullptr;
  const CUresult r = driver_api().ctx_get_current(&context);
  if (r != CUDA_SUCCESS || context == nullptr)
    throw CudaError(std::string("cuCtxGetCurrent failed: ") + driver_error_name(r));
  return context;
}

}  // namespace

CounterGpu current_counter_gpu() {
  CounterGpu gpu;
  if (cudaGetDevice(&gpu.ordinal) != cudaSuccess) {
    (void)cudaGetLastError();
    gpu.ordinal = 0;
  }
  gpu.name = [ordinal = gpu.ordinal] {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
      (void)cudaGetLastError();
      return std::string();
    }
    return std::string(prop.name);
  };
  return gpu;
}

void check_range_profiler(CUptiResult result, const char* call) {
  switch (result) {
    case CUPTI_SUCCESS:
      return;
    case CUPTI_ERROR_HARDWARE_BUSY:
      throw CountersBusyError(counters_busy_message(current_counter_gpu(), call));
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      throw CounterPermissionError(
          std::string(call) + " failed: " + cupti_error_text(result) +
          ". This process may not read the GPU's hardware counters (ERR_NVGPUCTRPERM). Run as "
          "root, start the container with --cap-add SYS_ADMIN, or have an administrator load "
          "the NVIDIA driver with NVreg_RestrictProfilingToAdminUsers=0 "
          "(https://developer.nvidia.com/ERR_NVGPUCTRPERM). Durations "
          "(metrics=['gpu__time_duration.sum']) need no permission and still work.");
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
#if CUPTI_API_VERSION >= 28  // named since CUPTI 12.9; a 12.6 build reports them as they come
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
#endif
      throw UnsupportedError(std::string(call) + " failed: " + cupti_error_text(result) +
                             ". Hardware counters cannot be read on this device; durations "
                             "(metrics=['gpu__time_duration.sum']) still work.");
    default:
      check_cupti(result, call);
  }
}

RangeProfiler::RangeProfiler(std::vector<std::string> metrics, bool reset_cache_per_pass,
                             CounterWait* wait)
    : metrics_(std::move(metrics)),
      own_wait_(wait != nullptr ? nullptr
                                : std::make_unique<CounterWait>(0.0, system_counter_wait_clock())),
      wait_(wait != nullptr ? wait : own_wait_.get()) {
  Timed timed(costs_.enable_s);
  context_ = current_context();
  initialize_profiler();
  std::optional<std::string> chip = metrics::detail::device_chip();
  if (!chip) throw CudaError("cuptiDeviceGetChipName failed: CUPTI cannot name this GPU's chip");
  chip_ = *chip;
  availability_ = counter_availability(context_, *wait_, costs_.wait_s);
  {
    std::lock_guard lock(profiler_host_mutex());
    host_ = std::make_unique<HostObject>(chip_, &availability_);
    host_->add_metrics(metrics_);
    config_ = host_->config_image();
    passes_ = passes_of(config_);
  }
  // Only a configuration of several passes has passes to reset the L2 between.
  resets_cache_ =
      reset_cache_per_pass && passes_ > 1 && cupti_runtime_version() >= kCacheControlCupti;
  const auto enable = [this](bool reset_cache) {
    EnableParams p{};
    p.ctx = context_;
    p.structSize = reset_cache ? kEnableSizeCacheControl : kEnableSize13_0;
    if (reset_cache) p.cacheControlMode = static_cast<decltype(p.cacheControlMode)>(1);  // ALL
    const CUptiResult result =
        cuptiRangeProfilerEnable(reinterpret_cast<CUpti_RangeProfiler_Enable_Params*>(&p));
    if (result == CUPTI_SUCCESS) object_ = p.pRangeProfilerObject;
    return result;
  };
  CUptiResult result = enable(resets_cache_);
  if (result != CUPTI_SUCCESS && resets_cache_) {  // a CUPTI whose driver cannot reset the L2
    resets_cache_ = false;
    result = enable(false);
  }
  check_range_profiler(result, "cuptiRangeProfilerEnable");
}

RangeProfiler::~RangeProfiler() { disable(); }

void RangeProfiler::disable() noexcept {
  if (object_ == nullptr) return;
  if (in_pass_) {
    auto s =
        cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    s.pRangeProfilerObject = object_;
    (void)cudaDeviceSynchronize();
    (void)cuptiRangeProfilerStop(&s);
    in_pass_ = false;
  }
  auto d = cupti_params<CUpti_RangeProfiler_Disable_Params>(
      CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
  d.pRangeProfilerObject = object_;
  (void)cuptiRangeProfilerDisable(&d);
  object_ = nullptr;
  std::lock_guard lock(profiler_host_mutex());
  host_.reset();
}

void RangeProfiler::begin_session(Mode mode, std::size_t max_ranges, int nesting_levels) {
  Timed timed(costs_.session_s);
  ++costs_.sessions;
  std::vector<const char*> names = c_names(metrics_);
  auto size = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = object_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = max_ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_ranges);
  check_range_profiler(cuptiRangeProfilerGetCounterDataSize(&size),
                       "cuptiRangeProfilerGetCounterDataSize");
  counter_data_.assign(size.counterDataSize, 0);
  max_ranges_ = max_ranges;
  auto init = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = object_;
  init.counterDataSize = counter_data_.size();
  init.pCounterData = counter_data_.data();
  check_range_profiler(cuptiRangeProfilerCounterDataImageInitialize(&init),
                       "cuptiRangeProfilerCounterDataImageInitialize");

  const bool user = mode == Mode::user_replay;
  auto c = cupti_params<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  c.pRangeProfilerObject = object_;
  c.configSize = config_.size();
  c.pConfig = config_.data();
  c.counterDataImageSize = counter_data_.size();
  c.pCounterDataImage = counter_data_.data();
  c.range = user ? CUPTI_UserRange : CUPTI_AutoRange;
  c.replayMode = mode == Mode::kernel_replay ? CUPTI_KernelReplay : CUPTI_UserReplay;
  c.maxRangesPerPass = max_ranges;
  c.numNestingLevels = static_cast<std::uint16_t>(user ? nesting_levels : 1);
  c.minNestingLevel = 1;
  c.passIndex = 0;
  c.targetNestingLevel = 1;
  check_range_profiler(cuptiRangeProfilerSetConfig(&c), "cuptiRangeProfilerSetConfig");
}

void RangeProfiler::start_pass() {
  Timed timed(costs_.start_s);
  ++costs_.passes;
  auto s =
      cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  s.pRangeProfilerObject = object_;
  if (started_) {
    check_range_profiler(cuptiRangeProfilerStart(&s), "cuptiRangeProfilerStart");
  } else {
    // The first Start takes the counters: another process that took them since this one read
    // their availability makes it CUPTI_ERROR_HARDWARE_BUSY (seen on the H200; a Start tried
    // again once they are free succeeds and measures).
    take_counters(*wait_, "cuptiRangeProfilerStart", costs_.wait_s,
                  [&s] { return cuptiRangeProfilerStart(&s); });
    started_ = true;
  }
  in_pass_ = true;
}

bool RangeProfiler::end_pass() {
  Timed timed(costs_.stop_s);
  // Stop ends the pass on the CPU side; the pass's kernels must have finished first.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  auto s =
      cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  s.pRangeProfilerObject = object_;
  in_pass_ = false;
  check_range_profiler(cuptiRangeProfilerStop(&s), "cuptiRangeProfilerStop");
  return s.isAllPassSubmitted != 0;
}

void RangeProfiler::push_range(const std::string& name) {
  Timed timed(costs_.ranges_s);
  auto p = cupti_params<CUpti_RangeProfiler_PushRange_Params>(
      CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  p.pRangeName = name.c_str();
  check_range_profiler(cuptiRangeProfilerPushRange(&p), "cuptiRangeProfilerPushRange");
}

void RangeProfiler::pop_range() {
  Timed timed(costs_.ranges_s);
  auto p = cupti_params<CUpti_RangeProfiler_PopRange_Params>(
      CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  check_range_profiler(cuptiRangeProfilerPopRange(&p), "cuptiRangeProfilerPopRange");
}

std::vector<RangeValues> RangeProfiler::decode() {
  std::optional<Timed> timed(std::in_place, costs_.decode_s);
  auto d = cupti_params<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  d.pRangeProfilerObject = object_;
  check_range_profiler(cuptiRangeProfilerDecodeData(&d), "cuptiRangeProfilerDecodeData");
  if (d.numOfRangeDropped > 0)
    throw MeasurementError("the range profiler dropped " + std::to_string(d.numOfRangeDropped) +
                           " range(s): more than the " + std::to_string(max_ranges_) +
                           " its counter data holds were profiled in one collection");
  auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = counter_data_.data();
  info.counterDataImageSize = counter_data_.size();
  check_range_profiler(cuptiRangeProfilerGetCounterDataInfo(&info),
                       "cuptiRangeProfilerGetCounterDataInfo");
  std::vector<RangeValues> out(info.numTotalRanges);
  costs_.ranges += out.size();
  std::lock_guard lock(profiler_host_mutex());
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto r = cupti_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    r.pCounterDataImage = counter_data_.data();
    r.counterDataImageSize = counter_data_.size();
    r.rangeIndex = i;
    r.rangeDelimiter = "/";
    check_range_profiler(cuptiRangeProfilerCounterDataGetRangeInfo(&r),
                         "cuptiRangeProfilerCounterDataGetRangeInfo");
    out[i].name = r.rangeName != nullptr ? r.rangeName : "";
  }
  timed.reset();
  Timed evaluating(costs_.evaluate_s);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i].values = host_->evaluate(counter_data_, i, metrics_);
  return out;
}

}  // namespace kprof::detail
