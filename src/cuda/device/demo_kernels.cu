// kprof::demo::Kernels: small kernels of known behaviour for `kprof demo`, the examples and the
// GPU tests. Launched with <<<>>> on the default stream, which nvcc 13 lowers to
// __cudaLaunchKernel: the launch path most user code takes.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "cuda/device/cuda_check.hpp"
#include "kprof/demo.hpp"
#include "kprof/errors.hpp"

namespace kprof::demo {

// Kernels have names of their own namespace (not an anonymous one), so profiles show
// "kprof::demo::scale_kernel(...)" rather than "(anonymous namespace)::...".

__global__ void fill_kernel(float* x, float* y, std::size_t n) {
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) {  // non-zero, varied data: zeros hide unwritten outputs and can run faster
    x[i] = 1.0f + static_cast<float>(i % 13) * 0.25f;
    y[i] = 0.5f + static_cast<float>(i % 7) * 0.125f;
  }
}

__global__ void scale_kernel(const float* x, float* y, float a, std::size_t n) {
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

__global__ void add_kernel(const float* x, const float* y, float* z, std::size_t n) {
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}

__global__ void scale_add_kernel(const float* x, float* z, float a, std::size_t n) {
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) z[i] = x[i] + a * x[i];
}

__global__ void fma_kernel(const float* x, float* z, std::size_t n, int iterations) {
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = 0.999f, c = 0.001f;
  for (int k = 0; k < iterations; ++k) a = fmaf(a, b, c);  // a dependent chain: no overlap
  z[i] = a;
}

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// %globaltimer gives wall time independent of the SM clock, so the kernel lasts `ns` at any
// clock. clock64() caps the loop in case the timer does not advance on some platform.
__global__ void spin_kernel(std::uint64_t ns, long long cycle_cap, int* sink) {
  const std::uint64_t t0 = global_ns();
  const long long c0 = clock64();
  std::uint64_t t = t0;
  while (t - t0 < ns && clock64() - c0 < cycle_cap) t = global_ns();
  if (t == 0 && sink != nullptr) *sink = 1;  // never true; keeps the loop observable
}

namespace {

constexpr int kBlock = 256;

void check_launch(const char* kernel) { detail::check_cuda(cudaGetLastError(), kernel); }

unsigned int blocks_for(std::size_t n) {
  return static_cast<unsigned int>((n + kBlock - 1) / kBlock);
}

}  // namespace

struct Kernels::Impl {
  std::size_t capacity = 0;
  float* x = nullptr;
  float* y = nullptr;
  float* z = nullptr;
  int* sink = nullptr;
  int sm_count = 0;
  int clock_khz = 0;

  void check_size(std::size_t n, const char* what) const {
    if (n == 0 || n > capacity) {
      throw OptionError(std::string(what) + " n", std::to_string(n),
                        "1.." + std::to_string(capacity) + " (the max_elements of Kernels)");
    }
  }

  void release() noexcept {
    for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(z),
                    static_cast<void*>(sink)}) {
      if (p != nullptr) (void)cudaFree(p);
    }
    x = y = z = nullptr;
    sink = nullptr;
  }
};

Kernels::Kernels(std::size_t max_elements) : impl_(std::make_unique<Impl>()) {
  Impl& k = *impl_;
  k.capacity = max_elements;
  try {
    int device = 0;
    detail::check_cuda(cudaFree(nullptr), "cudaFree(0)");
    detail::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    detail::check_cuda(cudaDeviceGetAttribute(&k.sm_count, cudaDevAttrMultiProcessorCount, device),
                       "cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount)");
    detail::check_cuda(cudaDeviceGetAttribute(&k.clock_khz, cudaDevAttrClockRate, device),
                       "cudaDeviceGetAttribute(cudaDevAttrClockRate)");
    const std::size_t bytes = (max_elements > 0 ? max_elements : 1) * sizeof(float);
    detail::check_cuda(cudaMalloc(&k.x, bytes), "cudaMalloc");
    detail::check_cuda(cudaMalloc(&k.y, bytes), "cudaMalloc");
    detail::check_cuda(cudaMalloc(&k.z, bytes), "cudaMalloc");
    detail::check_cuda(cudaMalloc(&k.sink, sizeof(int)), "cudaMalloc");
    if (max_elements > 0) {
      fill_kernel<<<blocks_for(max_elements), kBlock>>>(k.x, k.y, max_elements);
      check_launch("fill_kernel");
    }
    detail::check_cuda(cudaMemset(k.z, 0xff, bytes), "cudaMemset");  // poison the output
    detail::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  } catch (...) {
    k.release();
    throw;
  }
}

Kernels::~Kernels() {
  if (impl_) impl_->release();
}

void Kernels::scale(std::size_t n, float a) {
  impl_->check_size(n, "scale");
  scale_kernel<<<blocks_for(n), kBlock>>>(impl_->x, impl_->y, a, n);
  check_launch("scale_kernel");
}

void Kernels::scale_add(std::size_t n, float a) {
  impl_->check_size(n, "scale_add");
  scale_add_kernel<<<blocks_for(n), kBlock>>>(impl_->x, impl_->z, a, n);
  check_launch("scale_add_kernel");
}

void Kernels::add(std::size_t n) {
  impl_->check_size(n, "add");
  add_kernel<<<blocks_for(n), kBlock>>>(impl_->x, impl_->y, impl_->z, n);
  check_launch("add_kernel");
}

void Kernels::fma(std::size_t n, int iterations) {
  impl_->check_size(n, "fma");
  if (iterations < 0) throw OptionError("fma iterations", std::to_string(iterations), ">= 0");
  fma_kernel<<<blocks_for(n), kBlock>>>(impl_->x, impl_->z, n, iterations);
  check_launch("fma_kernel");
}

void Kernels::spin(double microseconds) {
  if (!(microseconds >= 0) || microseconds > 60e6) {
    throw OptionError("spin microseconds", std::to_string(microseconds), "0 .. 60000000");
  }
  const auto ns = static_cast<std::uint64_t>(microseconds * 1000.0);
  // Twice the cycles the wait takes at the rated peak clock, plus a margin: never reached
  // while %globaltimer advances, since the SM clock does not exceed its rated peak.
  const double rated_cycles = microseconds * 1e-3 * static_cast<double>(impl_->clock_khz);
  const auto cycle_cap = static_cast<long long>(2.0 * rated_cycles) + 100000;
  spin_kernel<<<impl_->sm_count, 32>>>(ns, cycle_cap, impl_->sink);
  check_launch("spin_kernel");
}

void Kernels::synchronize() {
  detail::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

}  // namespace kprof::demo
