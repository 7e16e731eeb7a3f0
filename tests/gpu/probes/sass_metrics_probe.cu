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

namespace {

const int kBlocks = 264, kThreads = 256;
const char* const kKernelNames[] = {"ffma", "fadd+fmul", "dfma"};

void launch(int which, void* out) {
  if (which == 0) ffma_kernel<<<kBlocks, kThreads>>>(static_cast<float*>(out), 1.0001f, 0.5f);
  if (which == 1) fadd_fmul_kernel<<<kBlocks, kThreads>>>(static_cast<float*>(out), 0.5f, 1.0001f);
  if (which == 2) dfma_kernel<<<kBlocks, kThreads>>>(static_cast<double*>(out), 1.0001, 0.5);
}

double micros_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

// Every SASS metric CUPTI offers for the chip, with its description.
int print_offered_metrics(const char* chip) {
  CUpti_SassMetrics_GetNumOfMetrics_Params num{
      CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
  num.pChipName = chip;
  CHECK(cuptiSassMetricsGetNumOfMetrics(&num));
  std::vector<CUpti_SassMetrics_MetricDetails> all(num.numOfMetrics);
  CUpti_SassMetrics_GetMetrics_Params get{CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
  get.pChipName = chip;
  get.numOfMetrics = num.numOfMetrics;
  get.pMetricsList = all.data();
  CHECK(cuptiSassMetricsGetMetrics(&get));
  std::printf("%zu SASS metrics:\n", all.size());
  for (const auto& m : all) std::printf("  %s: %s\n", m.pMetricName, m.pMetricDescription);
  return 0;
}

// Sets the metrics wanted that the chip offers, counted for the whole GPU; names maps each
// metric's id to its name.
int set_wanted_metrics(const char* chip, std::map<uint64_t, std::string>& names) {
  const char* wanted[] = {"smsp__sass_inst_executed",
                          "smsp__sass_thread_inst_executed",
                          "smsp__sass_thread_inst_executed_op_ffma_pred_on",
                          "smsp__sass_thread_inst_executed_op_fadd_pred_on",
                          "smsp__sass_thread_inst_executed_op_fmul_pred_on",
                          "smsp__sass_thread_inst_executed_op_dfma_pred_on",
                          "smsp__sass_thread_inst_executed_op_hfma_pred_on",
                          "smsp__sass_thread_inst_executed_pred_on"};
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const char* w : wanted) {
    CUpti_SassMetrics_GetProperties_Params p{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    p.pChipName = chip;
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
  return 0;
}

int disable(CUcontext ctx, size_t* dropped = nullptr) {
  CUpti_SassMetricsDisable_Params dis{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
  dis.ctx = ctx;
  CHECK(cuptiSassMetricsDisable(&dis));
  if (dropped) *dropped = dis.numOfDroppedRecords;
  return 0;
}

// Prints the counts flushed: per PC on the first repetition (the opcode at each offset comes
// from cuobjdump -sass), then each function's PCs and each metric's sum against theory.
void print_counts(const std::vector<CUpti_SassMetrics_Data>& data, size_t instances,
                  const std::map<uint64_t, std::string>& names, int rep) {
  std::map<std::string, double> sums;
  std::map<std::string, int> functions;
  for (const auto& d : data) {
    functions[d.functionName ? d.functionName : "?"]++;
    if (rep == 0) {
      std::printf("    pc 0x%04x", d.pcOffset);
      for (size_t i = 0; i < instances && i < 4; ++i)
        std::printf("  %s=%llu", names.at(d.pInstanceValues[i].metricId).c_str() + 12,
                    static_cast<unsigned long long>(d.pInstanceValues[i].value));
      std::printf("\n");
    }
    for (size_t i = 0; i < instances; ++i)
      sums[names.at(d.pInstanceValues[i].metricId)] += double(d.pInstanceValues[i].value);
  }
  for (const auto& [f, n] : functions) std::printf("    function %s: %d PCs\n", f.c_str(), n);
  const double threads_total = double(kBlocks) * kThreads;
  for (const auto& [m, v] : sums)
    std::printf("    %-52s %14.0f  (/threads/iters %.4f)\n", m.c_str(), v,
                v / threads_total / kIters / (rep + 1));
}

// One kernel counted in a range of its own: launched once (rep 0) or twice (rep 1: do the
// counts add up?), timed patched, its counts flushed and printed.
int count_one_kernel(CUcontext ctx, int k, int rep, void* out,
                     const std::map<uint64_t, std::string>& names) {
  CUpti_SassMetricsEnable_Params en{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  en.enableLazyPatching = 1;
  CHECK(cuptiSassMetricsEnable(&en));
  auto t0 = std::chrono::steady_clock::now();
  launch(k, out);
  if (rep == 1) launch(k, out);
  cudaDeviceSynchronize();
  double us = micros_since(t0);
  CUpti_SassMetricsGetDataProperties_Params dp{
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  dp.ctx = ctx;
  CHECK(cuptiSassMetricsGetDataProperties(&dp));
  std::printf("%s x%d: %zu records, %zu instances\n", kKernelNames[k], rep + 1,
              dp.numOfPatchedInstructionRecords, dp.numOfInstances);
  if (dp.numOfPatchedInstructionRecords == 0) return disable(ctx);
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
  double flush_us = micros_since(t1);
  size_t dropped = 0;
  if (int rc = disable(ctx, &dropped)) return rc;
  std::printf("%s x%d patched: %.1f us, flush %.1f us, %zu records, %zu instances, dropped %zu\n",
              kKernelNames[k], rep + 1, us, flush_us, data.size(), dp.numOfInstances, dropped);
  print_counts(data, dp.numOfInstances, names, rep);
  return 0;
}

// Each kernel timed unpatched, after the disable: does patching leave them slower?
void time_plain(void* out) {
  for (int k = 0; k < 3; ++k) {
    launch(k, out);
    cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    launch(k, out);
    cudaDeviceSynchronize();
    std::printf("%s plain: %.1f us\n", kKernelNames[k], micros_since(t0));
  }
}

}  // namespace

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
  std::map<uint64_t, std::string> names;
  if (int rc = print_offered_metrics(chip.pChipName)) return rc;
  if (int rc = set_wanted_metrics(chip.pChipName, names)) return rc;
  void* out = nullptr;
  cudaMalloc(&out, kBlocks * kThreads * sizeof(double));
  for (int rep = 0; rep < 2; ++rep)
    for (int k = 0; k < 3; ++k)
      if (int rc = count_one_kernel(ctx, k, rep, out, names)) return rc;
  time_plain(out);
  CUpti_SassMetricsUnsetConfig_Params unset{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
  unset.deviceIndex = 0;
  CHECK(cuptiSassMetricsUnsetConfig(&unset));
  std::printf("done\n");
  return 0;
}
