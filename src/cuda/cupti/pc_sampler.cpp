#include "cuda/cupti/pc_sampler.hpp"

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "cuda/cupti/cupti_check.hpp"
#include "cuda/device/cuda_check.hpp"
#include "cuda/device/driver_api.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

namespace {

// Samplers enabled in this process (PcSampler::enabled_in_process).
std::atomic<int> enabled_samplers{0};

// PCs fetched per cuptiPCSamplingGetData: a kernel's hot loop is a few hundred instructions,
// and what does not fit comes in the next call.
constexpr std::size_t kPcsPerFetch = 1024;

template <typename Params>
Params params_for(CUcontext context, std::size_t size) {
  Params p{};
  p.size = size;
  p.ctx = context;
  return p;
}

void check_sampling(CUptiResult result, const char* call) {
  if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    throw CounterPermissionError(std::string(call) +
                                 ": this process may not sample the GPU's warps (" +
                                 cupti_error_text(result) + "); see `kprof doctor`");
  if (result == CUPTI_ERROR_NOT_SUPPORTED)
    throw UnsupportedError(std::string(call) +
                           ": CUPTI's PC sampling is not supported on this device or system (" +
                           cupti_error_text(result) + ")");
  check_cupti(result, call);
}

void set_attributes(CUcontext context, std::vector<CUpti_PCSamplingConfigurationInfo>& infos) {
  CUpti_PCSamplingConfigurationInfoParams p{};
  p.size = CUpti_PCSamplingConfigurationInfoParamsSize;
  p.ctx = context;
  p.numAttributes = infos.size();
  p.pPCSamplingConfigurationInfo = infos.data();
  check_sampling(cuptiPCSamplingSetConfigurationAttribute(&p),
                 "cuptiPCSamplingSetConfigurationAttribute");
}

CUpti_PCSamplingConfigurationInfo attribute(CUpti_PCSamplingConfigurationAttributeType type) {
  CUpti_PCSamplingConfigurationInfo info{};
  info.attributeType = type;
  return info;
}

}  // namespace

PcSampler::PcSampler(int period_log2) {
  std::uint32_t version = 0;
  check_cupti(cuptiGetVersion(&version), "cuptiGetVersion");
  if (version < kFirstApi)
    throw UnsupportedError(
        "PC sampling needs CUPTI 12.4 or later; the loaded CUPTI's API "
        "version is " +
        std::to_string(version));
  check_cuda(cudaFree(nullptr), "cudaFree(0)");
  const CUresult current = driver_api().ctx_get_current(&context_);
  if (current != CUDA_SUCCESS || context_ == nullptr)
    throw CudaError(std::string("cuCtxGetCurrent failed: ") + driver_error_name(current));

  auto enable =
      params_for<CUpti_PCSamplingEnableParams>(context_, CUpti_PCSamplingEnableParamsSize);
  check_sampling(cuptiPCSamplingEnable(&enable), "cuptiPCSamplingEnable");
  try {
    std::size_t count = 0;
    auto num = params_for<CUpti_PCSamplingGetNumStallReasonsParams>(
        context_, CUpti_PCSamplingGetNumStallReasonsParamsSize);
    num.numStallReasons = &count;
    check_sampling(cuptiPCSamplingGetNumStallReasons(&num), "cuptiPCSamplingGetNumStallReasons");

    std::vector<std::vector<char>> text(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
    std::vector<char*> pointers;
    for (auto& t : text) pointers.push_back(t.data());
    cupti_index_.resize(count);
    auto names = params_for<CUpti_PCSamplingGetStallReasonsParams>(
        context_, CUpti_PCSamplingGetStallReasonsParamsSize);
    names.numStallReasons = count;
    names.stallReasonIndex = cupti_index_.data();
    names.stallReasons = pointers.data();
    check_sampling(cuptiPCSamplingGetStallReasons(&names), "cuptiPCSamplingGetStallReasons");
    for (const auto& t : text) names_.emplace_back(t.data());

    // Room for every reason of kPcsPerFetch PCs, which CUPTI fills in place.
    records_.resize(kPcsPerFetch);
    stall_storage_.resize(kPcsPerFetch * count);
    for (std::size_t i = 0; i < kPcsPerFetch; ++i) {
      records_[i].size = sizeof(CUpti_PCSamplingPCData);
      records_[i].stallReason = stall_storage_.data() + i * count;
    }
    buffer_.size = sizeof(CUpti_PCSamplingData);
    buffer_.collectNumPcs = kPcsPerFetch;
    buffer_.pPcData = records_.data();

    std::vector<CUpti_PCSamplingConfigurationInfo> infos;
    infos.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE));
    infos.back().attributeData.collectionModeData.collectionMode =
        CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
    infos.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD));
    infos.back().attributeData.samplingPeriodData.samplingPeriod =
        static_cast<std::uint32_t>(period_log2);
    infos.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON));
    infos.back().attributeData.stallReasonData.stallReasonCount = count;
    infos.back().attributeData.stallReasonData.pStallReasonIndex = cupti_index_.data();
    infos.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER));
    infos.back().attributeData.samplingDataBufferData.samplingDataBuffer = &buffer_;
    infos.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL));
    infos.back().attributeData.enableStartStopControlData.enableStartStopControl = 1;
    infos.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT));
    infos.back().attributeData.outputDataFormatData.outputDataFormat =
        CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
    set_attributes(context_, infos);
  } catch (...) {
    auto disable =
        params_for<CUpti_PCSamplingDisableParams>(context_, CUpti_PCSamplingDisableParamsSize);
    cuptiPCSamplingDisable(&disable);
    throw;
  }
  ++enabled_samplers;
}

PcSampler::~PcSampler() {
  if (started_) {
    auto stop = params_for<CUpti_PCSamplingStopParams>(context_, CUpti_PCSamplingStopParamsSize);
    cuptiPCSamplingStop(&stop);
  }
  auto disable =
      params_for<CUpti_PCSamplingDisableParams>(context_, CUpti_PCSamplingDisableParamsSize);
  cuptiPCSamplingDisable(&disable);
  --enabled_samplers;
}

bool PcSampler::enabled_in_process() noexcept { return enabled_samplers.load() > 0; }

void PcSampler::set_period(int period_log2) {
  std::vector<CUpti_PCSamplingConfigurationInfo> infos;
  infos.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD));
  infos.back().attributeData.samplingPeriodData.samplingPeriod =
      static_cast<std::uint32_t>(period_log2);
  set_attributes(context_, infos);
}

void PcSampler::start() {
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before PC sampling)");
  auto start = params_for<CUpti_PCSamplingStartParams>(context_, CUpti_PCSamplingStartParamsSize);
  check_sampling(cuptiPCSamplingStart(&start), "cuptiPCSamplingStart");
  started_ = true;
}

PcSamples PcSampler::stop() {
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after PC sampling)");
  auto stop = params_for<CUpti_PCSamplingStopParams>(context_, CUpti_PCSamplingStopParamsSize);
  check_sampling(cuptiPCSamplingStop(&stop), "cuptiPCSamplingStop");
  started_ = false;
  PcSamples out;
  drain(out);
  return out;
}

// What stop() left in the configured buffer, then what cuptiPCSamplingGetData still holds, a
// buffer at a time; a record is read once (its count cleared after), whichever call wrote it.
void PcSampler::drain(PcSamples& out) {
  const auto take = [&] {
    for (std::size_t i = 0; i < buffer_.totalNumPcs; ++i) {
      const CUpti_PCSamplingPCData& r = records_[i];
      SampledPc pc;
      pc.cubin_crc = r.cubinCrc;
      pc.pc_offset = r.pcOffset;
      // The name may be shared with other records, this drain's or a later one's (the
      // header's words), so it is copied and never freed here.
      pc.function = r.functionName != nullptr ? r.functionName : "";
      for (std::size_t s = 0; s < r.stallReasonCount; ++s) {
        const CUpti_PCSamplingStallReason& stall = r.stallReason[s];
        if (stall.samples == 0) continue;
        for (std::size_t k = 0; k < cupti_index_.size(); ++k)
          if (cupti_index_[k] == stall.pcSamplingStallReasonIndex)
            pc.stalls.push_back({k, stall.samples});
      }
      out.pcs.push_back(std::move(pc));
    }
    // Whether a fetch's totals are the range's or its own PCs' the header leaves open: the
    // largest is kept, which is right either way for a window of up to kPcsPerFetch PCs.
    out.total_samples = std::max<std::uint64_t>(out.total_samples, buffer_.totalSamples);
    out.dropped_samples = std::max<std::uint64_t>(out.dropped_samples, buffer_.droppedSamples);
    out.non_user_samples =
        std::max<std::uint64_t>(out.non_user_samples, buffer_.nonUsrKernelsTotalSamples);
    out.hardware_buffer_full = out.hardware_buffer_full || buffer_.hardwareBufferFull != 0;
    buffer_.totalNumPcs = 0;
    buffer_.totalSamples = buffer_.droppedSamples = buffer_.nonUsrKernelsTotalSamples = 0;
  };
  take();
  while (true) {
    auto get =
        params_for<CUpti_PCSamplingGetDataParams>(context_, CUpti_PCSamplingGetDataParamsSize);
    get.pcSamplingData = &buffer_;
    const CUptiResult result = cuptiPCSamplingGetData(&get);
    if (result == CUPTI_ERROR_OUT_OF_MEMORY) {  // the hardware buffer was full: samples lost
      out.hardware_buffer_full = true;
      break;
    }
    check_sampling(result, "cuptiPCSamplingGetData");
    const bool fetched = buffer_.totalNumPcs > 0;
    take();
    if (buffer_.remainingNumPcs == 0 || !fetched) break;  // done, or no progress to wait for
  }
}

}  // namespace kprof::detail
