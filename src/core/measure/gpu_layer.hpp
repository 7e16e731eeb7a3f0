// The one seam between the core and the GPU: everything the library needs from the GPU layer,
// implemented by src/cuda (built with CUDA) or by src/nocuda (built without: every GPU call
// throws NoGpuError, annotations skip NVTX). The core includes this header, never src/cuda's.
// Both layers also implement the public API's GPU calls where it declares them: query_system()
// and use_device() (kprof/device.hpp), and the demo kernels (kprof/demo.hpp).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/backend.hpp"
#include "core/measure/device_probe.hpp"
#include "kprof/options.hpp"

namespace kprof::metrics::detail {

class CatalogSource;  // core/metrics/metric_catalog.hpp

// cuptiProfilerHostGetSupportedChips. Throws NoGpuError without CUDA, CudaError on failure.
std::vector<std::string> host_supported_chips();
// The catalog of `chip`, a name host_supported_chips() listed.
std::unique_ptr<CatalogSource> load_catalog_source(const std::string& chip);
// cuptiDeviceGetChipName of the current device; empty without a usable GPU.
std::optional<std::string> device_chip();

}  // namespace kprof::metrics::detail

namespace kprof::detail {

class InstructionCounter;  // core/measure/flop_pass.hpp
class WarpSampler;         // core/measure/sampling_pass.hpp
struct RegionSpan;         // core/measure/sampling_pass.hpp

// Whether CUPTI's activity records measure `options` (kernel replay, no metric but the duration
// and launch statistics); any counter takes the range profiler.
bool activity_records_measure(const Options& options);

// The backend that measures `options` on the current CUDA device, their replay mode resolved
// (profile() resolves "auto": chosen_replay_mode). Throws NoGpuError when no GPU or driver can
// be used, UnsupportedError for options this build cannot measure.
std::unique_ptr<Backend> make_gpu_backend(const Options& options);

// What the engine reads from and sets on the GPU besides the backend (SweepServices), for the
// current CUDA device: NVML's probe of it, the probe the thermal guard watches (thermal_device,
// or the profiled device), and, for clock_control="base", its clock setter. A part that cannot
// be had is null, with the reason. Throws OptionError when thermal_device is not a CUDA device.
struct DeviceServices {
  std::unique_ptr<DeviceProbe> device;
  std::unique_ptr<DeviceProbe> thermal;  // null: the thermal guard watches `device`
  std::unique_ptr<ClockSetter> clocks;
  std::string device_unavailable;
  std::string thermal_unavailable;
  std::string clocks_unavailable;
};
DeviceServices make_device_services(const Options& options);

// The sticky error of the current device's context ("cudaErrorIllegalAddress: an illegal
// memory access was encountered"), "" when the context is usable. Waits for the device.
std::string gpu_fault() noexcept;

// Waits for the current device's queued work (cudaDeviceSynchronize). An error it returns is
// left to the CUDA call that follows, or to gpu_fault().
void wait_for_gpu() noexcept;

// set:flop counted in the process (core/measure/flop_pass.hpp): "" where it can be, else why not,
// with what to do (a CUPTI before 13.5, which counts only the first kernel of a collection; no
// nvdisasm; a build without CUDA). Touches no GPU.
std::string flop_counting_unavailable();

// From now on and for the process, keeps the code of every CUDA module loaded, which set:flop
// needs of each kernel it counts (CUDA gives no module's code back after its load): kprof's
// CUPTI subscription, held from now on and borrowed by each profile. While it is held, another
// CUPTI client (torch.profiler's Kineto, Nsight Systems) is refused. Does nothing once it
// succeeded; throws CuptiBusyError when another client (or a running profile) holds CUPTI,
// CudaError when CUPTI refuses the module callback, NoGpuError in a build without CUDA.
void watch_module_loads();

// The instruction counter of set:flop's pass on the current device. Throws UnsupportedError
// where flop_counting_unavailable() says why.
std::unique_ptr<InstructionCounter> make_instruction_counter();

// set:source sampled in the process (core/measure/sampling_pass.hpp): "" where it can be (or
// where CUPTI cannot be asked: the profile then says why), else why not (a CUPTI before 12.4,
// whose PC data has another layout; a build without CUDA). Touches no GPU.
std::string warp_sampling_unavailable();

// set:source's warp samplers on the current device (CUPTI's PC sampling), sampling enabled now
// (and kept enabled for the process), before the profile traces anything: enabled after the
// measured runs, CUPTI counts every sample as another's kernels' and gives no PC
// (docs/validation.md). The pass calls the factory with
// the regions' `span`, which sets the period (sampling_period_log2). Where CUPTI cannot sample,
// the sampler's first start() throws why (UnsupportedError, CounterPermissionError); in a build
// without CUDA, this throws NoGpuError.
std::function<std::unique_ptr<WarpSampler>(const RegionSpan&)> prepare_warp_sampling();

// NVTX range in the domain "kprof" around an annotation (push/pop on the calling thread).
void nvtx_push(const std::string& name) noexcept;
void nvtx_pop() noexcept;

}  // namespace kprof::detail
