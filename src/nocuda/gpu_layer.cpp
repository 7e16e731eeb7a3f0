// A build without CUDA: GPU work fails with one clear error, annotations skip NVTX.
#include "core/measure/gpu_layer.hpp"

#include "core/measure/flop_pass.hpp"
#include "core/measure/sampling_pass.hpp"
#include "nocuda/no_gpu.hpp"

namespace kprof::detail {

std::unique_ptr<Backend> make_gpu_backend(const Options& /*options*/) {
  throw built_without_cuda();
}

std::string flop_counting_unavailable() {
  return std::string("set:flop counts instructions on the GPU: ") + built_without_cuda().what();
}

std::string warp_sampling_unavailable() {
  return std::string("set:source samples warps on the GPU: ") + built_without_cuda().what();
}

void watch_module_loads() { throw built_without_cuda(); }

std::unique_ptr<InstructionCounter> make_instruction_counter() { throw built_without_cuda(); }

std::function<std::unique_ptr<WarpSampler>(const RegionSpan&)> prepare_warp_sampling() {
  throw built_without_cuda();
}

std::string gpu_fault() noexcept { return {}; }
void wait_for_gpu() noexcept {}

void nvtx_push(const std::string& /*name*/) noexcept {}
void nvtx_pop() noexcept {}

}  // namespace kprof::detail
