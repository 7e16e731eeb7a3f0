// A build without CUDA has no demo kernels: constructing them says why.
#include "kprof/demo.hpp"
#include "nocuda/no_gpu.hpp"

namespace kprof::demo {

struct Kernels::Impl {};

Kernels::Kernels(std::size_t /*max_elements*/) { throw detail::built_without_cuda(); }
Kernels::~Kernels() = default;
void Kernels::scale(std::size_t, float) { throw detail::built_without_cuda(); }
void Kernels::add(std::size_t) { throw detail::built_without_cuda(); }
void Kernels::scale_add(std::size_t, float) { throw detail::built_without_cuda(); }
void Kernels::fma(std::size_t, int) { throw detail::built_without_cuda(); }
void Kernels::spin(double) { throw detail::built_without_cuda(); }
void Kernels::synchronize() { throw detail::built_without_cuda(); }

}  // namespace kprof::demo
