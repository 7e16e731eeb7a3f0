// Which kernels CUPTI's SASS metrics API collects when several run in one collection: per
// function, the summed thread instructions (smsp__sass_thread_inst_executed_pred_on) of three
// kernels launched in a given order, flushed after each. Built and run by hand:
//   nvcc -O2 -arch=sm_90 tests/gpu/probes/sass_many_kernels_probe.cu -lcupti -lcuda -o probe
//   ./probe ORDER LAZY CONTEXT [CYCLE]
// ORDER: abc or cba; LAZY: 0 or 1; CONTEXT: primary or created; CYCLE: none (one collection),
// enable (a disable and enable between kernels), config (the configuration unset and set again
// between kernels too).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cupti_check.hpp"

__global__ void kernel_a(float* out) { out[threadIdx.x] = threadIdx.x * 2.0f; }
__global__ void kernel_b(float* out) { out[threadIdx.x] += 1.0f; }
__global__ void kernel_c(float* out) { out[threadIdx.x] *= 3.0f; }

int flush(CUcontext ctx, const char* after) {
  CUpti_SassMetricsGetDataProperties_Params dp{
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  dp.ctx = ctx;
  CHECK(cuptiSassMetricsGetDataProperties(&dp));
  std::printf("after %s: %zu records, %zu instances\n", after, dp.numOfPatchedInstructionRecords,
              dp.numOfInstances);
  if (dp.numOfPatchedInstructionRecords == 0) return 0;
  std::vector<CUpti_SassMetrics_Data> data(dp.numOfPatchedInstructionRecords);
  std::vector<CUpti_SassMetrics_InstanceValue> values(data.size() * dp.numOfInstances);
  for (size_t i = 0; i < data.size(); ++i) {
    data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    data[i].pInstanceValues = values.data() + i * dp.numOfInstances;
  }
  CUpti_SassMetricsFlushData_Params fl{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
  fl.ctx = ctx;
  fl.numOfPatchedInstructionRecords = data.size();
  fl.numOfInstances = dp.numOfInstances;
  fl.pMetricsData = data.data();
  CHECK(cuptiSassMetricsFlushData(&fl));
  std::map<std::string, double> per_function;
  for (const auto& d : data) {
    for (size_t i = 0; i < dp.numOfInstances; ++i)
      per_function[d.functionName ? d.functionName : "?"] += double(d.pInstanceValues[i].value);
    std::free(const_cast<char*>(d.functionName));  // CUPTI's copy: the caller frees it
  }
  for (const auto& [f, v] : per_function) std::printf("    %s: %.0f\n", f.c_str(), v);
  return 0;
}

int main(int argc, char** argv) {
  const std::string order = argc > 1 ? argv[1] : "abc";
  const int lazy = argc > 2 ? std::atoi(argv[2]) : 1;
  const bool created = argc > 3 && std::strcmp(argv[3], "created") == 0;
  const std::string cycle = argc > 4 ? argv[4] : "none";
  cuInit(0);
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CHECK(cuptiProfilerInitialize(&init));
  CUcontext ctx = nullptr;
  if (created) {
    CUdevice dev;
    cuDeviceGet(&dev, 0);
    cuCtxCreate(&ctx, nullptr, 0, dev);
  } else {
    cudaFree(0);
    cuCtxGetCurrent(&ctx);
  }
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  CHECK(cuptiDeviceGetChipName(&chip));
  CUpti_SassMetrics_GetProperties_Params p{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
  p.pChipName = chip.pChipName;
  p.pMetricName = "smsp__sass_thread_inst_executed_pred_on";
  CHECK(cuptiSassMetricsGetProperties(&p));
  CUpti_SassMetrics_Config config{p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU};
  CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  set.numOfMetricConfig = 1;
  set.pConfigs = &config;
  CHECK(cuptiSassMetricsSetConfig(&set));
  float* out = nullptr;
  cudaMalloc(&out, 1024 * sizeof(float));
  CUpti_SassMetricsEnable_Params en{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  en.enableLazyPatching = lazy;
  CHECK(cuptiSassMetricsEnable(&en));
  std::printf("order %s, lazy %d, %s context\n", order.c_str(), lazy,
              created ? "created" : "primary");
  for (char k : order + order) {  // each kernel twice: is a second launch counted?
    if (k == 'a') kernel_a<<<1, 256>>>(out);
    if (k == 'b') kernel_b<<<1, 256>>>(out);
    if (k == 'c') kernel_c<<<1, 256>>>(out);
    std::printf("kernel_%c: %s\n", k, cudaGetErrorString(cudaDeviceSynchronize()));
    const char name[] = {'k', k, 0};
    if (flush(ctx, name)) return 1;
    if (cycle == "none") continue;
    CUpti_SassMetricsDisable_Params off{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    off.ctx = ctx;
    CHECK(cuptiSassMetricsDisable(&off));
    if (cycle == "config") {
      CUpti_SassMetricsUnsetConfig_Params unset{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
      CHECK(cuptiSassMetricsUnsetConfig(&unset));
      CHECK(cuptiSassMetricsSetConfig(&set));
    }
    CHECK(cuptiSassMetricsEnable(&en));
  }
  CUpti_SassMetricsDisable_Params dis{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
  dis.ctx = ctx;
  CHECK(cuptiSassMetricsDisable(&dis));
  std::printf("dropped %zu\n", dis.numOfDroppedRecords);
  return 0;
}
