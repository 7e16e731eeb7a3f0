// The metric catalog in a build without CUDA: it needs CUPTI's Profiler Host API, so every
// call says kprof was built without CUDA. Metric sets and their expansion still work (core).
#include "core/measure/gpu_layer.hpp"
#include "core/metrics/metric_catalog.hpp"
#include "kprof/errors.hpp"
#include "nocuda/no_gpu.hpp"

namespace kprof::metrics::detail {
namespace {

NoGpuError no_catalog() {
  return kprof::detail::built_without_cuda("the metric catalog needs CUPTI's Profiler Host API");
}

}  // namespace

std::vector<std::string> host_supported_chips() { throw no_catalog(); }

std::unique_ptr<CatalogSource> load_catalog_source(const std::string& /*chip*/) {
  throw no_catalog();
}

std::optional<std::string> device_chip() { return std::nullopt; }

}  // namespace kprof::metrics::detail
