// set:source's warp sampler (core/measure/sampling_pass.hpp) on the current device: CUPTI's PC
// sampling (PcSampler), its period chosen from the shortest region and the device's SMs and
// rated clock, stopped and started again at each boundary to hand over what it sampled.
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "core/measure/gpu_layer.hpp"
#include "core/measure/sampling_pass.hpp"
#include "cuda/cupti/module_code.hpp"
#include "cuda/cupti/pc_sampler.hpp"
#include "cuda/cupti/range_profiler.hpp"
#include "cuda/device/cuda_check.hpp"
#include "cuda/device/device_facts.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"

namespace kprof::detail {
namespace {

// The period sampling is enabled with, until the pass sets the regions' own.
constexpr int kDefaultPeriodLog2 = 10;

// PC sampling enabled on a device's context, or why it could not be.
struct EnabledSampling {
  std::unique_ptr<PcSampler> sampler;
  std::exception_ptr failed;
};

// PC sampling stays enabled on each device's context from the first profile that samples its
// warps: enabled after the process traced kernels, CUPTI attributes no sample to them
// (docs/validation.md), so a later profile keeps using it. Never freed: CUPTI holds its buffer.
std::shared_ptr<EnabledSampling> enabled_sampling(int device) {
  static auto& mutex = *new std::mutex;
  static auto& enabled = *new std::map<int, std::shared_ptr<EnabledSampling>>;
  const std::lock_guard lock(mutex);
  std::shared_ptr<EnabledSampling>& slot = enabled[device];
  if (slot == nullptr || slot->failed) {
    slot = std::make_shared<EnabledSampling>();
    try {
      slot->sampler = std::make_unique<PcSampler>(kDefaultPeriodLog2);
    } catch (...) {  // said by the pass, which keeps the measured runs
      slot->failed = std::current_exception();
    }
  }
  return slot;
}

class CuptiWarpSampler final : public WarpSampler {
 public:
  CuptiWarpSampler(std::shared_ptr<EnabledSampling> enabled, int period_log2)
      : enabled_(std::move(enabled)), period_log2_(period_log2) {}

  void start() override {
    if (enabled_->failed) std::rethrow_exception(enabled_->failed);
    sampler_ = enabled_->sampler.get();
    sampler_->set_period(period_log2_);
    sampler_->start();
    sampling_ = true;
  }
  SampleWindow take() override {
    SampleWindow out = window(sampler_->stop());
    sampling_ = false;
    sampler_->start();
    sampling_ = true;
    return out;
  }
  void discard() override { (void)take(); }
  InstructionPlace place(std::uint32_t crc, const std::string& function,
                         std::uint64_t pc_offset) override {
    InstructionPlace out;
    const SourceLine line = ModuleCode::source_line(crc, function, pc_offset);
    if (line.line > 0) {
      out.line = static_cast<int>(line.line);
      // A relative name is the compiler's directory's.
      out.file =
          line.dir.empty() || line.file.starts_with('/') ? line.file : line.dir + "/" + line.file;
    }
    if (!disassembly_missing_) {
      try {
        if (const Disassembly* code = ModuleCode::disassembly(crc); code != nullptr)
          if (const auto f = code->find(function); f != code->end())
            if (const auto pc = f->second.find(static_cast<std::uint32_t>(pc_offset));
                pc != f->second.end())
              out.sass = pc->second;
      } catch (const UnsupportedError&) {  // no nvdisasm: lines without their SASS
        disassembly_missing_ = true;
      } catch (const Error&) {  // this module's code could not be read: its lines without SASS
      }
    }
    return out;
  }
  void stop() noexcept override {
    try {
      if (sampling_) (void)sampler_->stop();
    } catch (...) {  // the pass's own error, if any, says what went wrong
    }
    sampling_ = false;
  }

 private:
  // PcSampler's samples in the core's terms: each reason by its short name; the sample count
  // and the dropped samples (CUPTI lists them as reasons too) are the window's.
  SampleWindow window(const PcSamples& samples) const {
    SampleWindow out;
    out.total_samples = samples.total_samples;
    out.dropped_samples = samples.dropped_samples;
    out.buffer_full = samples.hardware_buffer_full;
    for (const SampledPc& pc : samples.pcs)
      for (const PcStall& stall : pc.stalls) {
        const std::string_view reason =
            metrics::stall_reason_of(sampler_->reasons().at(stall.reason));
        if (reason.empty()) continue;
        out.stalls.push_back({pc.function, pc.pc_offset, static_cast<std::uint32_t>(pc.cubin_crc),
                              std::string(reason), stall.samples});
      }
    return out;
  }

  std::shared_ptr<EnabledSampling> enabled_;
  int period_log2_;
  PcSampler* sampler_ = nullptr;  // enabled_'s, once started
  bool sampling_ = false;
  bool disassembly_missing_ = false;
};

}  // namespace

std::string warp_sampling_unavailable() {
  const std::uint32_t version = cupti_runtime_version();
  if (version == 0 || version >= PcSampler::kFirstApi) return "";
  return "set:source samples warps with CUPTI's PC sampling as CUPTI 12.4 and later lay out its "
         "data, and this process loaded CUPTI " +
         format_cupti_version(static_cast<int>(version)) +
         ": install nvidia-cuda-cupti for a CUDA 12.4 or later, or measure the warp samples "
         "with Nsight Compute";
}

std::function<std::unique_ptr<WarpSampler>(const RegionSpan&)> prepare_warp_sampling() {
  std::shared_ptr<EnabledSampling> enabled = enabled_sampling(current_device());
  return [enabled](const RegionSpan& span) -> std::unique_ptr<WarpSampler> {
    const DeviceInfo device = read_device_info(current_device());
    return std::make_unique<CuptiWarpSampler>(
        enabled, sampling_period_log2(span.shortest_ns, span.longest_ns, device.sm_count,
                                      static_cast<double>(device.compute_clock_khz)));
  };
}

}  // namespace kprof::detail
