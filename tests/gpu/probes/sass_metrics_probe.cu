// What CUPTI's SASS metrics API counts on this GPU: the metrics it offers for the chip, and the
// FP32/FP64/FP16 instruction counts of kernels whose counts are known, against theory. A probe
// for the FLOP count of the roofline (docs/analysis.md), built and run by hand:
//   nvcc -O2 -arch=sm_90 tests/gpu/probes/sass_metrics_probe.cu -lcupti -lcuda -o probe
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cupti_check.hpp"

constexpr int kIters = 1000;

__global__ void ffma_kernel(float* out, float a, float b) {
  float x = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < kIters; ++i) x = fmaf(x, a, b);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void fadd_fmul_kernel(float* out, float a, float b) {
  float x = threadIdx.x, y = blockIdx.x;
#pragma unroll 1
  for (int i = 0; i < kIters; ++i) {
    x = __fadd_rn(x, a);
    y = __fmul_rn(y, b);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

__global__ void dfma_kernel(double* out, double a, double b) {
  double x = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < kIters; ++i) x = fma(x, a, b);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

int main() {
  cudaFree(0);
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);  // the runtime's primary context; no kernel has run in it yet
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CHECK(cuptiProfilerInitialize(&init));
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = 0;
  CHECK(cuptiDeviceGetChipName(&chip));
  std::printf("chip %s\n", chip.pChipName);

  CUpti_SassMetrics_GetNumOfMetrics_Params num{
      CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
  num.pChipName = chip.pChipName;
  CHECK(cuptiSassMetricsGetNumOfMetrics(&num));
  std::vector<CUpti_SassMetrics_MetricDetails> all(num.numOfMetrics);
  CUpti_SassMetrics_GetMetrics_Params get{CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
  get.pChipName = chip.pChipName;
  get.numOfMetrics = num.numOfMetrics;
  get.pMetricsList = all.data();
  CHECK(cuptiSassMetricsGetMetrics(&get));
  std::printf("%zu SASS metrics:\n", all.size());
  for (const auto& m : all) std::printf("  %s: %s\n", m.pMetricName, m.pMetricDescription);

  const char* wanted[] = {"smsp__sass_inst_executed",
                          "smsp__sass_thread_inst_executed",
                          "smsp__sass_thread_inst_executed_op_ffma_pred_on",
                          "smsp__sass_thread_inst_executed_op_fadd_pred_on",
                          "smsp__sass_thread_inst_executed_op_fmul_pred_on",
                          "smsp__sass_thread_inst_executed_op_dfma_pred_on",
                          "smsp__sass_thread_inst_executed_op_hfma_pred_on",
                          "smsp__sass_thread_inst_executed_pred_on"};
  std::vector<CUpti_SassMetrics_Config> configs;
  std::map<uint64_t, std::string> names;
  for (const char* w : wanted) {
    CUpti_SassMetrics_GetProperties_Params p{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    p.pChipName = chip.pChipName;
    p.pMetricName = w;
    if (cuptiSassMetricsGetProperties(&p) != CUPTI_SUCCESS) {
      std::printf("not offered: %s\n", w);
      continue;
    }
    configs.push_back({p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
    names[p.metric.metricId] = w;
  }
  CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = 0;
  CHECK(cuptiSassMetricsSetConfig(&set));

  const int blocks = 264, threads = 256;
  void* out = nullptr;
  cudaMalloc(&out, blocks * threads * sizeof(double));
  auto launch = [&](int which) {
    if (which == 0) ffma_kernel<<<blocks, threads>>>(static_cast<float*>(out), 1.0001f, 0.5f);
    if (which == 1) fadd_fmul_kernel<<<blocks, threads>>>(static_cast<float*>(out), 0.5f, 1.0001f);
    if (which == 2) dfma_kernel<<<blocks, threads>>>(static_cast<double*>(out), 1.0001, 0.5);
  };
  const char* kernel_names[] = {"ffma", "fadd+fmul", "dfma"};
  const double threads_total = double(blocks) * threads;
  for (int rep = 0; rep < 2; ++rep) {
    for (int k = 0; k < 3; ++k) {
      CUpti_SassMetricsEnable_Params en{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
      en.ctx = ctx;
      en.enableLazyPatching = 1;
      CHECK(cuptiSassMetricsEnable(&en));
      auto t0 = std::chrono::steady_clock::now();
      launch(k);
      if (rep == 1) launch(k);  // two launches in one range: do the counts add up?
      cudaDeviceSynchronize();
      double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      CUpti_SassMetricsGetDataProperties_Params dp{
          CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
      dp.ctx = ctx;
      CHECK(cuptiSassMetricsGetDataProperties(&dp));
      std::printf("%s x%d: %zu records, %zu instances\n", kernel_names[k], rep + 1,
                  dp.numOfPatchedInstructionRecords, dp.numOfInstances);
      if (dp.numOfPatchedInstructionRecords == 0) {
        CUpti_SassMetricsDisable_Params dis{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
        dis.ctx = ctx;
        CHECK(cuptiSassMetricsDisable(&dis));
        continue;
      }
      std::vector<CUpti_SassMetrics_Data> data(dp.numOfPatchedInstructionRecords);
      std::vector<CUpti_SassMetrics_InstanceValue> values(dp.numOfPatchedInstructionRecords *
                                                          dp.numOfInstances);
      for (size_t i = 0; i < data.size(); ++i) {
        data[i].structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;  // as the header says
        data[i].pInstanceValues = values.data() + i * dp.numOfInstances;
      }
      CUpti_SassMetricsFlushData_Params fl{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
      fl.ctx = ctx;
      fl.numOfPatchedInstructionRecords = data.size();
      fl.numOfInstances = dp.numOfInstances;
      fl.pMetricsData = data.data();
      auto t1 = std::chrono::steady_clock::now();
      CHECK(cuptiSassMetricsFlushData(&fl));
      double flush_us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count();
      std::map<std::string, double> sums;
      std::map<std::string, int> functions;
      for (const auto& d : data) {
        functions[d.functionName ? d.functionName : "?"]++;
        if (rep == 0) {  // per PC: the opcode at each offset comes from cuobjdump -sass
          std::printf("    pc 0x%04x", d.pcOffset);
          for (size_t i = 0; i < dp.numOfInstances && i < 4; ++i)
            std::printf("  %s=%llu", names[d.pInstanceValues[i].metricId].c_str() + 12,
                        static_cast<unsigned long long>(d.pInstanceValues[i].value));
          std::printf("\n");
        }
        for (size_t i = 0; i < dp.numOfInstances; ++i)
          sums[names[d.pInstanceValues[i].metricId]] += double(d.pInstanceValues[i].value);
      }
      CUpti_SassMetricsDisable_Params dis{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
      dis.ctx = ctx;
      CHECK(cuptiSassMetricsDisable(&dis));
      std::printf(
          "%s x%d patched: %.1f us, flush %.1f us, %zu records, %zu instances, dropped %zu\n",
          kernel_names[k], rep + 1, us, flush_us, data.size(), dp.numOfInstances,
          dis.numOfDroppedRecords);
      for (const auto& [f, n] : functions) std::printf("    function %s: %d PCs\n", f.c_str(), n);
      for (const auto& [m, v] : sums)
        std::printf("    %-52s %14.0f  (/threads/iters %.4f)\n", m.c_str(), v,
                    v / threads_total / kIters / (rep + 1));
    }
  }
  for (int k = 0; k < 3; ++k) {  // unpatched, after the disable
    launch(k);
    cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    launch(k);
    cudaDeviceSynchronize();
    double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s plain: %.1f us\n", kernel_names[k], us);
  }
  CUpti_SassMetricsUnsetConfig_Params unset{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
  unset.deviceIndex = 0;
  CHECK(cuptiSassMetricsUnsetConfig(&unset));
  std::printf("done\n");
  return 0;
}
