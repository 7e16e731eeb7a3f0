#include "cuda/cupti/sass_counter.hpp"

#include <cupti_profiler_target.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/measure/gpu_layer.hpp"
#include "core/metrics/metric_catalog.hpp"
#include "cuda/cupti/cupti_check.hpp"
#include "cuda/cupti/module_code.hpp"
#include "cuda/cupti/range_profiler.hpp"
#include "cuda/device/cuda_check.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

constexpr const char* kMetric = "smsp__sass_thread_inst_executed_pred_on";

// The id CUPTI gives kMetric on `chip`. CUPTI 13.0 refuses the per-opcode metrics
// (..._op_ffma_pred_on): the opcode comes from the disassembly instead.
std::uint64_t metric_id(const std::string& chip) {
  auto p = cupti_params<CUpti_SassMetrics_GetProperties_Params>(
      CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
  p.pChipName = chip.c_str();
  p.pMetricName = kMetric;
  const CUptiResult result = cuptiSassMetricsGetProperties(&p);
  if (result == CUPTI_ERROR_INVALID_PARAMETER || result == CUPTI_ERROR_INVALID_METRIC_NAME)
    throw UnsupportedError(std::string("CUPTI's SASS metrics API offers no ") + kMetric +
                           " for chip " + chip + ": " + cupti_error_text(result));
  check_range_profiler(result, "cuptiSassMetricsGetProperties");
  return p.metric.metricId;
}

// The count of one record: the values of kMetric over its instances (one at GPU granularity).
PcCount pc_count(const CUpti_SassMetrics_Data& data, std::size_t instances, std::uint64_t metric) {
  PcCount pc;
  pc.cubin_crc = data.cubinCrc;
  pc.function = data.functionName != nullptr ? data.functionName : "";
  pc.pc_offset = data.pcOffset;
  for (std::size_t i = 0; i < instances; ++i)
    if (data.pInstanceValues[i].metricId == metric) pc.count += data.pInstanceValues[i].value;
  return pc;
}

// CUPTI's own word on the device (architecture, vGPU, WSL, confidential computing), before
// SetConfig would fail with a less telling error.
void check_supported(int device) {
  auto p = cupti_params<CUpti_Profiler_DeviceSupported_Params>(
      CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  p.cuDevice = device;
  p.api = CUPTI_PROFILER_SASS_METRICS;
  check_range_profiler(cuptiProfilerDeviceSupported(&p), "cuptiProfilerDeviceSupported");
  if (p.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    throw UnsupportedError("CUPTI's SASS metrics API does not support GPU " +
                           std::to_string(device) +
                           " in this configuration (its architecture, vGPU, WSL, confidential "
                           "computing or a mining processor: cuptiProfilerDeviceSupported)");
}

// Sets the configuration of `device` once per process: CUPTI (13.0 and 13.5 on the H200) fails
// a SetConfig that follows an UnsetConfig with CUPTI_ERROR_OUT_OF_MEMORY, so it is never unset
// and every SassCounter of the device shares it. Returns the metric's id.
std::uint64_t configure_once(int device) {
  static std::mutex mutex;
  static std::map<int, std::uint64_t> configured;  // device -> metric id
  std::lock_guard lock(mutex);
  if (auto done = configured.find(device); done != configured.end()) return done->second;
  check_supported(device);
  const std::optional<std::string> chip = metrics::detail::device_chip();
  if (!chip) throw CudaError("cuptiDeviceGetChipName failed: CUPTI cannot name this GPU's chip");
  CUpti_SassMetrics_Config config{metric_id(*chip), CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU};
  auto p = cupti_params<CUpti_SassMetricsSetConfig_Params>(
      CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
  p.numOfMetricConfig = 1;
  p.pConfigs = &config;
  p.deviceIndex = static_cast<std::uint32_t>(device);
  check_range_profiler(cuptiSassMetricsSetConfig(&p), "cuptiSassMetricsSetConfig");
  return configured.emplace(device, config.metricId).first->second;
}

}  // namespace

SassCounter::SassCounter() : device_(current_device()) {
  check_cuda(cudaFree(nullptr), "cudaFree(0)");  // SetConfig fails before a context exists
  initialize_profiler();
  metric_ = configure_once(device_);
}

bool SassCounter::counts_every_kernel() { return cupti_runtime_version() >= 130500; }

SassCounter::~SassCounter() {
  try {
    if (enabled_) disable();
  } catch (const Error&) {  // a destructor reports nothing
  }
}

void SassCounter::enable(CUcontext context, bool lazy_patching) {
  auto p = cupti_params<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
  p.ctx = context;
  p.enableLazyPatching = lazy_patching ? 1 : 0;
  check_range_profiler(cuptiSassMetricsEnable(&p), "cuptiSassMetricsEnable");
  context_ = context;
  enabled_ = true;
}

std::vector<PcCount> SassCounter::flush() {
  auto props = cupti_params<CUpti_SassMetricsGetDataProperties_Params>(
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
  props.ctx = context_;
  check_range_profiler(cuptiSassMetricsGetDataProperties(&props),
                       "cuptiSassMetricsGetDataProperties");
  const std::size_t records = props.numOfPatchedInstructionRecords;
  const std::size_t instances = props.numOfInstances;
  if (records == 0 || instances == 0) return {};
  std::vector<CUpti_SassMetrics_InstanceValue> values(records * instances);
  std::vector<CUpti_SassMetrics_Data> data(records);
  for (std::size_t i = 0; i < records; ++i) {
    data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    data[i].pInstanceValues = values.data() + i * instances;
  }
  auto p = cupti_params<CUpti_SassMetricsFlushData_Params>(
      CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
  p.ctx = context_;
  p.numOfPatchedInstructionRecords = records;
  p.numOfInstances = instances;
  p.pMetricsData = data.data();
  check_range_profiler(cuptiSassMetricsFlushData(&p), "cuptiSassMetricsFlushData");
  std::vector<PcCount> result;
  result.reserve(records);
  for (const auto& d : data) {
    result.push_back(pc_count(d, instances, metric_));
    std::free(const_cast<char*>(d.functionName));  // CUPTI's copy, the caller's to free
  }
  return result;
}

std::size_t SassCounter::disable() {
  auto p =
      cupti_params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
  p.ctx = context_;
  enabled_ = false;
  check_range_profiler(cuptiSassMetricsDisable(&p), "cuptiSassMetricsDisable");
  return p.numOfDroppedRecords;
}

std::map<std::string, FlopCounts> SassCounter::flop_counts(const std::vector<PcCount>& pcs) {
  return detail::flop_counts(pcs, [](std::uint32_t crc) { return ModuleCode::disassembly(crc); });
}

}  // namespace kprof::detail
