// Does CUPTI's range profiler make automatic (per-kernel) ranges in this process? Three kernels
// under AutoRange + UserReplay, then the ranges decoded and DRAM bytes read evaluated; with
// `subscribe` a callback subscriber (as kprof's, for launch attribution) is active meanwhile.
// A probe for CUPTI 12 builds, run by hand:
//   nvcc -O2 -arch=sm_90 tests/gpu/probes/auto_range_probe.cu -lcupti -lcuda -o probe
//   ./probe; ./probe subscribe
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "cupti_check.hpp"

__global__ void scale(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}

int launches = 0;
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {
  ++launches;
}

namespace {

const char* kMetrics[] = {"dram__bytes_read.sum"};

// The chip's name and its counter availability image for `ctx`.
int chip_and_availability(CUcontext ctx, const char*& chip, std::vector<uint8_t>& availability) {
  CUpti_Device_GetChipName_Params name{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  CHECK(cuptiDeviceGetChipName(&name));
  chip = name.pChipName;
  CUpti_Profiler_GetCounterAvailability_Params avail{
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.ctx = ctx;
  CHECK(cuptiProfilerGetCounterAvailability(&avail));
  availability.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  CHECK(cuptiProfilerGetCounterAvailability(&avail));
  return 0;
}

// The host object that evaluates kMetrics, and the configuration image that collects them.
int config_image(const char* chip, std::vector<uint8_t>& availability,
                 CUpti_Profiler_Host_Object*& host_object, std::vector<uint8_t>& config) {
  CUpti_Profiler_Host_Initialize_Params host{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip;
  host.pCounterAvailabilityImage = availability.data();
  CHECK(cuptiProfilerHostInitialize(&host));
  host_object = host.pHostObject;
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = host_object;
  add.ppMetricNames = kMetrics;
  add.numMetrics = 1;
  CHECK(cuptiProfilerHostConfigAddMetrics(&add));
  CUpti_Profiler_Host_GetConfigImageSize_Params size{
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = host_object;
  CHECK(cuptiProfilerHostGetConfigImageSize(&size));
  config.resize(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params image{
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  image.pHostObject = host_object;
  image.configImageSize = config.size();
  image.pConfigImage = config.data();
  CHECK(cuptiProfilerHostGetConfigImage(&image));
  return 0;
}

// The range profiler enabled on `ctx`, its counter data image made, and set to AutoRange with
// UserReplay: each kernel a range of its own, if CUPTI makes them.
int enable_auto_ranges(CUcontext ctx, std::vector<uint8_t>& config,
                       CUpti_RangeProfiler_Object*& profiler, std::vector<uint8_t>& counter_data) {
  CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = ctx;
  CHECK(cuptiRangeProfilerEnable(&enable));
  profiler = enable.pRangeProfilerObject;
  CUpti_RangeProfiler_GetCounterDataSize_Params data_size{
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  data_size.pRangeProfilerObject = profiler;
  data_size.pMetricNames = kMetrics;
  data_size.numMetrics = 1;
  data_size.maxNumOfRanges = 8;
  data_size.maxNumRangeTreeNodes = 8;
  CHECK(cuptiRangeProfilerGetCounterDataSize(&data_size));
  counter_data.resize(data_size.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params data_init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  data_init.pRangeProfilerObject = profiler;
  data_init.counterDataSize = counter_data.size();
  data_init.pCounterData = counter_data.data();
  CHECK(cuptiRangeProfilerCounterDataImageInitialize(&data_init));
  CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = profiler;
  set.configSize = config.size();
  set.pConfig = config.data();
  set.counterDataImageSize = counter_data.size();
  set.pCounterDataImage = counter_data.data();
  set.range = CUPTI_AutoRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = 8;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  CHECK(cuptiRangeProfilerSetConfig(&set));
  return 0;
}

// Three kernels in one pass, decoded; prints how many ranges CUPTI made and what each read.
int profile_three_kernels(CUpti_RangeProfiler_Object* profiler,
                          CUpti_Profiler_Host_Object* host_object,
                          std::vector<uint8_t>& counter_data) {
  const int n = 1 << 24;
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = profiler;
  CHECK(cuptiRangeProfilerStart(&start));
  for (int k = 0; k < 3; ++k) scale<<<(n + 255) / 256, 256>>>(x, y, n);
  cudaDeviceSynchronize();
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = profiler;
  CHECK(cuptiRangeProfilerStop(&stop));
  CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = profiler;
  CHECK(cuptiRangeProfilerDecodeData(&decode));
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  CHECK(cuptiRangeProfilerGetCounterDataInfo(&info));
  std::printf(
      "all passes submitted %d, ranges dropped %zu, ranges %zu (3 kernels), launch "
      "callbacks %d\n",
      stop.isAllPassSubmitted, decode.numOfRangeDropped, info.numTotalRanges, launches);
  for (size_t i = 0; i < info.numTotalRanges; ++i) {
    double value = 0;
    CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    eval.pHostObject = host_object;
    eval.pCounterDataImage = counter_data.data();
    eval.counterDataImageSize = counter_data.size();
    eval.rangeIndex = i;
    eval.ppMetricNames = kMetrics;
    eval.numMetrics = 1;
    eval.pMetricValues = &value;
    CHECK(cuptiProfilerHostEvaluateToGpuValues(&eval));
    std::printf("  range %zu: dram__bytes_read.sum %.0f (theory %d)\n", i, value, 4 * n);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool subscribe = argc > 1 && std::strcmp(argv[1], "subscribe") == 0;
  cudaFree(nullptr);
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  uint32_t version = 0;
  cuptiGetVersion(&version);
  std::printf("CUPTI API version %u, subscriber %s\n", version, subscribe ? "on" : "off");
  CUpti_SubscriberHandle subscriber = nullptr;
  if (subscribe) {
    CHECK(cuptiSubscribe(&subscriber, on_callback, nullptr));
    CHECK(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API));
  }
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CHECK(cuptiProfilerInitialize(&init));
  const char* chip = nullptr;
  std::vector<uint8_t> availability, config, counter_data;
  CUpti_Profiler_Host_Object* host_object = nullptr;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  if (int rc = chip_and_availability(ctx, chip, availability)) return rc;
  if (int rc = config_image(chip, availability, host_object, config)) return rc;
  if (int rc = enable_auto_ranges(ctx, config, profiler, counter_data)) return rc;
  return profile_three_kernels(profiler, host_object, counter_data);
}
