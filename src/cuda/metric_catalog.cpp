// The metric catalog from CUPTI's Profiler Host API: chips, base metrics, suffixes,
// properties and pass counts, all computed on the CPU for a named chip (no GPU, no driver).
//
// libcupti does the work in NVIDIA's Perf SDK host library, which it dlopen()s by the bare name
// "libnvperf_host.so" when the host API is first used. That name is found only through
// LD_LIBRARY_PATH or the ld.so cache, not next to libcupti: with a toolkit that ldconfig does
// not list (CI images, pip wheels) every call then fails with CUPTI_ERROR_NOT_INITIALIZED.
// So kprof loads it first from libcupti's own directory; the loader then hands libcupti that
// copy (same soname). No libcuda is involved at any point.
#include "core/metric_catalog.hpp"

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/cupti_check.hpp"
#include "kprof/errors.hpp"

namespace kprof::metrics::detail {
namespace {

// A CUPTI parameter struct: zeroed (pPriv = NULL), with the size this build was compiled with.
template <typename P>
P params(std::size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}

constexpr const char* kPerfHostLibrary = "libnvperf_host.so";

// Every Profiler Host call goes through this lock: CUPTI documents no thread safety for it.
std::mutex& host_mutex() {
  static std::mutex m;
  return m;
}

struct PerfHostLoad {
  bool loaded = false;
  std::string where;  // the file kprof tried, or why it could not
};

// Loads libnvperf_host.so from libcupti's directory unless the process already has one.
const PerfHostLoad& load_perf_host() {
  static const PerfHostLoad result = [] {
    PerfHostLoad r;
    if (dlopen(kPerfHostLibrary, RTLD_NOW | RTLD_NOLOAD) != nullptr) {
      r.loaded = true;
      r.where = "already loaded";
      return r;
    }
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cuptiProfilerHostInitialize), &info) == 0 ||
        info.dli_fname == nullptr) {
      r.where = "libcupti's directory is unknown (dladdr failed)";
      return r;
    }
    std::string dir = info.dli_fname;
    dir = dir.substr(0, dir.find_last_of('/') == std::string::npos ? 0 : dir.find_last_of('/'));
    r.where = (dir.empty() ? std::string(".") : dir) + "/" + kPerfHostLibrary;
    // Kept for the life of the process, as libcupti keeps its own handle.
    if (dlopen(r.where.c_str(), RTLD_NOW | RTLD_LOCAL) != nullptr) {
      r.loaded = true;
    } else {
      const char* why = dlerror();
      r.where += std::string(" could not be loaded: ") + (why ? why : "unknown reason");
    }
    return r;
  }();
  return result;
}

// check_cupti, with the reason a Profiler Host call that never started usually has.
void check_host(CUptiResult result, const char* call) {
  if (result == CUPTI_ERROR_NOT_INITIALIZED && !load_perf_host().loaded) {
    throw CudaError(std::string(call) + " failed: " + kprof::detail::cupti_error_text(result) +
                    ". CUPTI's Profiler Host API needs " + kPerfHostLibrary +
                    " (NVIDIA's Perf SDK, shipped next to libcupti), which was not found: " +
                    load_perf_host().where +
                    ". Put the CUDA toolkit's lib64 directory on LD_LIBRARY_PATH.");
  }
  kprof::detail::check_cupti(result, call);
}

MetricType to_type(CUpti_MetricType t) {
  switch (t) {
    case CUPTI_METRIC_TYPE_RATIO:
      return MetricType::ratio;
    case CUPTI_METRIC_TYPE_THROUGHPUT:
      return MetricType::throughput;
    default:
      return MetricType::counter;
  }
}

// A CUpti_Profiler_Host_Object for one chip, without a counter availability image (none exists
// without a device). Callers hold host_mutex().
class HostObject {
 public:
  explicit HostObject(const std::string& chip) {
    auto p = params<CUpti_Profiler_Host_Initialize_Params>(
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = nullptr;
    check_host(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
    object_ = p.pHostObject;
  }
  ~HostObject() {
    auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = object_;
    (void)cuptiProfilerHostDeinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return object_; }

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

class HostCatalogSource final : public CatalogSource {
 public:
  explicit HostCatalogSource(const std::string& chip_name) : host_(chip_name) {
    chip = chip_name;
    std::map<std::vector<std::string>, std::size_t> interned;
    for (CUpti_MetricType t :
         {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
      auto b = params<CUpti_Profiler_Host_GetBaseMetrics_Params>(
          CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
      b.pHostObject = host_.get();
      b.metricType = t;
      check_host(cuptiProfilerHostGetBaseMetrics(&b), "cuptiProfilerHostGetBaseMetrics");
      for (std::size_t i = 0; i < b.numMetrics; ++i) {
        auto s = params<CUpti_Profiler_Host_GetSubMetrics_Params>(
            CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE);
        s.pHostObject = host_.get();
        s.metricType = t;
        s.pMetricName = b.ppMetricNames[i];
        check_host(cuptiProfilerHostGetSubMetrics(&s), "cuptiProfilerHostGetSubMetrics");
        std::vector<std::string> suffixes(s.ppSubMetrics, s.ppSubMetrics + s.numOfSubmetrics);
        const auto [it, added] = interned.emplace(std::move(suffixes), suffix_lists.size());
        if (added) suffix_lists.push_back(it->first);
        bases.push_back({b.ppMetricNames[i], to_type(t), it->second});
      }
    }
  }

  std::optional<Properties> properties(const std::string& name) const override {
    std::lock_guard lock(host_mutex());
    auto p = params<CUpti_Profiler_Host_GetMetricProperties_Params>(
        CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
    p.pHostObject = host_.get();
    p.pMetricName = name.c_str();
    if (cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS) return std::nullopt;
    Properties out;
    out.type = to_type(p.metricType);
    out.unit = p.pDimUnit ? p.pDimUnit : "";
    out.hw_unit = p.pHwUnit ? p.pHwUnit : "";
    out.description = p.pDescription ? p.pDescription : "";
    return out;
  }

  int passes(const std::vector<std::string>& names) const override {
    std::lock_guard lock(host_mutex());
    HostObject host(chip);  // a configuration only grows: one object per question
    std::vector<const char*> c_names;
    for (const std::string& n : names) c_names.push_back(n.c_str());
    auto a = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    a.pHostObject = host.get();
    a.ppMetricNames = c_names.data();
    a.numMetrics = c_names.size();
    check_host(cuptiProfilerHostConfigAddMetrics(&a), "cuptiProfilerHostConfigAddMetrics");
    auto s = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    s.pHostObject = host.get();
    check_host(cuptiProfilerHostGetConfigImageSize(&s), "cuptiProfilerHostGetConfigImageSize");
    std::vector<uint8_t> image(s.configImageSize);
    auto g = params<CUpti_Profiler_Host_GetConfigImage_Params>(
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    g.pHostObject = host.get();
    g.configImageSize = image.size();
    g.pConfigImage = image.data();
    check_host(cuptiProfilerHostGetConfigImage(&g), "cuptiProfilerHostGetConfigImage");
    auto n = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    n.configImageSize = image.size();
    n.pConfigImage = image.data();
    check_host(cuptiProfilerHostGetNumOfPasses(&n), "cuptiProfilerHostGetNumOfPasses");
    return static_cast<int>(n.numOfPasses);
  }

 private:
  HostObject host_;  // kept for GetMetricProperties
};

}  // namespace

std::vector<std::string> host_supported_chips() {
  load_perf_host();
  std::lock_guard lock(host_mutex());
  auto p = params<CUpti_Profiler_Host_GetSupportedChips_Params>(
      CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  check_host(cuptiProfilerHostGetSupportedChips(&p), "cuptiProfilerHostGetSupportedChips");
  return std::vector<std::string>(p.ppChipNames, p.ppChipNames + p.numChips);
}

std::unique_ptr<CatalogSource> load_catalog_source(const std::string& chip) {
  load_perf_host();
  std::lock_guard lock(host_mutex());
  return std::make_unique<HostCatalogSource>(chip);
}

// Not yet run on a GPU: the CUPTI samples ask for the chip name after cuptiProfilerInitialize,
// so when the plain call fails it is retried after one.
std::optional<std::string> device_chip() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return std::nullopt;
  auto ask = [device]() -> std::optional<std::string> {
    auto p = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    p.deviceIndex = static_cast<std::size_t>(device);
    if (cuptiDeviceGetChipName(&p) != CUPTI_SUCCESS || p.pChipName == nullptr) return std::nullopt;
    return std::string(p.pChipName);
  };
  if (auto chip = ask()) return chip;
  auto init =
      params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  if (cuptiProfilerInitialize(&init) != CUPTI_SUCCESS) return std::nullopt;
  // Left initialized: another client in the process (Kineto's range profiler) may use the
  // profiler interface, and DeInitialize could unload it under that client's feet.
  return ask();
}

}  // namespace kprof::metrics::detail
