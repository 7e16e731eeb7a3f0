// The metric catalog from CUPTI's Profiler Host API: chips, base metrics, suffixes,
// properties and pass counts, all computed on the CPU for a named chip (no GPU, no driver).
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/measure/gpu_layer.hpp"
#include "core/metrics/metric_catalog.hpp"
#include "cuda/cupti/profiler_host.hpp"
#include "cuda/cupti/range_profiler.hpp"
#include "kprof/errors.hpp"

namespace kprof::metrics::detail {
namespace {

using kprof::detail::check_host;
using kprof::detail::HostObject;
template <typename P>
P params(std::size_t struct_size) {
  return kprof::detail::cupti_params<P>(struct_size);
}
std::mutex& host_mutex() { return kprof::detail::profiler_host_mutex(); }

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

// CUPTI 12 describes a metric only by a full name: a base name with one of these (CUPTI 13 takes
// the base name alone). The suffixes listed do not depend on which one is given.
const char* any_suffix(CUpti_MetricType t) {
  switch (t) {
    case CUPTI_METRIC_TYPE_RATIO:
      return ".ratio";
    case CUPTI_METRIC_TYPE_THROUGHPUT:
      return ".avg.pct_of_peak_sustained_elapsed";
    default:
      return ".sum";
  }
}

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
        CUptiResult r = cuptiProfilerHostGetSubMetrics(&s);
        if (r == CUPTI_ERROR_INVALID_METRIC_NAME) {  // CUPTI 12
          const std::string full = std::string(b.ppMetricNames[i]) + any_suffix(t);
          s.pMetricName = full.c_str();
          r = cuptiProfilerHostGetSubMetrics(&s);
        }
        if (r == CUPTI_ERROR_INVALID_METRIC_NAME) continue;  // listed, yet not to be asked for
        check_host(r, "cuptiProfilerHostGetSubMetrics");
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
    CUptiResult r = cuptiProfilerHostGetMetricProperties(&p);
    for (CUpti_MetricType t : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO,
                               CUPTI_METRIC_TYPE_THROUGHPUT}) {  // a base name, on CUPTI 12
      if (r != CUPTI_ERROR_INVALID_METRIC_NAME || name.find('.') != std::string::npos) break;
      const std::string full = name + any_suffix(t);
      p.pMetricName = full.c_str();
      r = cuptiProfilerHostGetMetricProperties(&p);
    }
    if (r != CUPTI_SUCCESS) return std::nullopt;
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
    host.add_metrics(names);
    return kprof::detail::passes_of(host.config_image());
  }

 private:
  HostObject host_;  // kept for GetMetricProperties
};

}  // namespace

std::vector<std::string> host_supported_chips() {
  kprof::detail::load_perf_host();
  std::lock_guard lock(host_mutex());
  auto p = params<CUpti_Profiler_Host_GetSupportedChips_Params>(
      CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  check_host(cuptiProfilerHostGetSupportedChips(&p), "cuptiProfilerHostGetSupportedChips");
  return std::vector<std::string>(p.ppChipNames, p.ppChipNames + p.numChips);
}

std::unique_ptr<CatalogSource> load_catalog_source(const std::string& chip) {
  std::lock_guard lock(host_mutex());
  return std::make_unique<HostCatalogSource>(chip);
}

std::optional<std::string> device_chip() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    return std::nullopt;
  }
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return std::nullopt;
  // cuptiDeviceGetChipName crashed inside libcupti on the H200 when the profiler interface
  // was not initialized first.
  try {
    kprof::detail::initialize_profiler();
  } catch (const Error&) {
    return std::nullopt;
  }
  auto p = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  p.deviceIndex = static_cast<std::size_t>(device);
  if (cuptiDeviceGetChipName(&p) != CUPTI_SUCCESS || p.pChipName == nullptr) return std::nullopt;
  return std::string(p.pChipName);
}

}  // namespace kprof::metrics::detail
