#include "cuda/backends/launch_watch.hpp"

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <cstdint>
#include <string>

#include "cuda/cupti/copy_apis.hpp"
#include "cuda/cupti/cupti_check.hpp"
#include "cuda/cupti/launch_apis.hpp"
#include "cuda/cupti/pc_sampler.hpp"
#include "cuda/device/cuda_check.hpp"
#include "cuda/device/device_facts.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"

namespace kprof::detail {

void LaunchWatch::start(const FlushPlan& plan, ProfilerPause* pause) {
  stop();
  plan_ = plan;
  sink_.reset();  // detached by stop(): records come from the sink record_kernels() makes
  try {
    check_cuda(cudaFree(nullptr), "cudaFree(0)");
    attribution_ = std::make_unique<LaunchAttribution>(plan.before_kernels ? &flush_ : nullptr,
                                                       pause, current_device());
    // Subscribe first: when another tool holds CUPTI nothing else is worth doing.
    subscriber_.subscribe(&LaunchAttribution::callback, attribution_.get());
    if (plan.cold) flush_.allocate();
    subscriber_.enable(CUPTI_CB_DOMAIN_RUNTIME_API, runtime_launch_cbids());
    subscriber_.enable(CUPTI_CB_DOMAIN_DRIVER_API, driver_launch_cbids());
  } catch (...) {
    stop();
    throw;
  }
}

void LaunchWatch::record_kernels(bool copies) {
  sink_ = std::make_unique<ActivitySink>(attribution_->correlations());
  sink_->attach();
  // Where warps are sampled, kernels are traced one at a time: CUPTI samples no kernel traced
  // concurrently (PcSampler::enabled_in_process).
  kernel_kind_ = PcSampler::enabled_in_process() ? CUPTI_ACTIVITY_KIND_KERNEL
                                                 : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  if (kernel_kind_ == CUPTI_ACTIVITY_KIND_KERNEL)
    log_once("serialized kernel tracing",
             "kprof: this process samples warps (set:source), so from now on its profiles trace "
             "kernels one at a time: kernels of different streams do not overlap while measured "
             "(CUPTI samples no kernel traced concurrently; docs/source.md)");
  check_cupti(cuptiActivityEnable(kernel_kind_),
              kernel_kind_ == CUPTI_ACTIVITY_KIND_KERNEL
                  ? "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL)"
                  : "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)");
  kernels_recorded_ = true;
  if (!copies) return;
  subscriber_.enable(CUPTI_CB_DOMAIN_DRIVER_API, driver_copy_cbids());
  check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY),
              "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY)");
  check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET),
              "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET)");
  copies_recorded_ = true;
}

std::vector<KernelRecord> LaunchWatch::take_records(Dropped dropped) {
  if (sink_ == nullptr || attribution_ == nullptr)
    throw CudaError("kprof internal error: take_records() called before record_kernels()");
  // FlushAll delivers what is complete but does not wait for the GPU: synchronize first, or
  // the last kernels come back without end timestamps. It costs about ten times the tracing
  // of one kernel: once per collection, never per kernel.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
              "cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)");
  attribution_->rethrow_problem();
  if (const std::uint64_t lost = sink_->take_dropped(); lost > 0 && dropped == Dropped::fail) {
    throw MeasurementError("CUPTI dropped " + std::to_string(lost) +
                           " kernel activity record(s) (no buffer space): the kernels of this "
                           "run cannot all be measured");
  }
  return sink_->take();
}

void LaunchWatch::stop() noexcept {
  if (kernels_recorded_) {
    (void)cuptiActivityDisable(kernel_kind_);
    if (copies_recorded_) {
      (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
      (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
    }
    // Hand back every buffer CUPTI still holds, so none lands in a later profile.
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    kernels_recorded_ = copies_recorded_ = false;
  }
  subscriber_.unsubscribe();
  if (attribution_ != nullptr) attribution_->wait_idle();
  if (sink_ != nullptr) {
    sink_->detach();
    try {
      (void)sink_->take();
      (void)sink_->take_dropped();
    } catch (...) {
    }
  }
  if (attribution_ != nullptr) {
    attribution_->log_launches(false);
    attribution_->reset();
  }
  flush_.release();
}

}  // namespace kprof::detail
