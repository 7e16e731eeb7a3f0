// libcupti does the Profiler Host work in NVIDIA's Perf SDK host library, which it dlopen()s
// by the bare name "libnvperf_host.so" when the host API is first used. That name is found only
// through LD_LIBRARY_PATH or the ld.so cache, not next to libcupti: with a toolkit that ldconfig
// does not list (CI images, pip wheels) every call then fails with CUPTI_ERROR_NOT_INITIALIZED.
// So kprof loads it first from libcupti's own directory; the loader then hands libcupti that
// copy (same soname). No libcuda is involved at any point.
#include "cuda/cupti/profiler_host.hpp"

#include <dlfcn.h>

#include "cuda/cupti/cupti_check.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

constexpr const char* kPerfHostLibrary = "libnvperf_host.so";

struct PerfHostLoad {
  bool loaded = false;
  std::string where;  // the file kprof tried, or why it could not
};

const PerfHostLoad& perf_host() {
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

}  // namespace

std::mutex& profiler_host_mutex() {
  static std::mutex m;
  return m;
}

bool load_perf_host() { return perf_host().loaded; }

void check_host(CUptiResult result, const char* call) {
  if (result == CUPTI_ERROR_NOT_INITIALIZED && !perf_host().loaded) {
    throw CudaError(std::string(call) + " failed: " + cupti_error_text(result) +
                    ". CUPTI's Profiler Host API needs " + kPerfHostLibrary +
                    " (NVIDIA's Perf SDK, shipped next to libcupti), which was not found: " +
                    perf_host().where +
                    ". Put the CUDA toolkit's lib64 directory on LD_LIBRARY_PATH.");
  }
  check_cupti(result, call);
}

HostObject::HostObject(const std::string& chip,
                       const std::vector<std::uint8_t>* counter_availability) {
  load_perf_host();
  auto p = cupti_params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = counter_availability ? counter_availability->data() : nullptr;
  check_host(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
  object_ = p.pHostObject;
}

HostObject::~HostObject() {
  auto p = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(
      CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = object_;
  (void)cuptiProfilerHostDeinitialize(&p);
}

std::vector<const char*> c_names(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(n.c_str());
  return out;
}

void HostObject::add_metrics(const std::vector<std::string>& names) {
  std::vector<const char*> c = c_names(names);
  auto a = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  a.pHostObject = object_;
  a.ppMetricNames = c.data();
  a.numMetrics = c.size();
  check_host(cuptiProfilerHostConfigAddMetrics(&a), "cuptiProfilerHostConfigAddMetrics");
}

std::vector<std::uint8_t> HostObject::config_image() const {
  auto s = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  s.pHostObject = object_;
  check_host(cuptiProfilerHostGetConfigImageSize(&s), "cuptiProfilerHostGetConfigImageSize");
  std::vector<std::uint8_t> image(s.configImageSize);
  auto g = cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  g.pHostObject = object_;
  g.configImageSize = image.size();
  g.pConfigImage = image.data();
  check_host(cuptiProfilerHostGetConfigImage(&g), "cuptiProfilerHostGetConfigImage");
  return image;
}

std::vector<double> HostObject::evaluate(const std::vector<std::uint8_t>& counter_data,
                                         std::size_t range,
                                         const std::vector<std::string>& names) const {
  std::vector<const char*> c = c_names(names);
  std::vector<double> values(names.size());
  auto e = cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  e.pHostObject = object_;
  e.pCounterDataImage = counter_data.data();
  e.counterDataImageSize = counter_data.size();
  e.rangeIndex = range;
  e.ppMetricNames = c.data();
  e.numMetrics = c.size();
  e.pMetricValues = values.data();
  check_host(cuptiProfilerHostEvaluateToGpuValues(&e), "cuptiProfilerHostEvaluateToGpuValues");
  return values;
}

int passes_of(const std::vector<std::uint8_t>& config_image) {
  auto n = cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  n.configImageSize = config_image.size();
  n.pConfigImage = const_cast<std::uint8_t*>(config_image.data());
  check_host(cuptiProfilerHostGetNumOfPasses(&n), "cuptiProfilerHostGetNumOfPasses");
  return static_cast<int>(n.numOfPasses);
}

}  // namespace kprof::detail
