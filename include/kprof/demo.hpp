// Kernels that ship with kprof, for `kprof demo`, the examples and the GPU tests.
// They own their device buffers and launch on the default stream.
#pragma once

#include <cstddef>
#include <memory>

namespace kprof::demo {

class Kernels {
 public:
  // Allocates the buffers for vectors of up to `max_elements` floats on the current device.
  // Throws NoGpuError without a GPU.
  explicit Kernels(std::size_t max_elements);
  ~Kernels();
  Kernels(const Kernels&) = delete;
  Kernels& operator=(const Kernels&) = delete;

  // y = a * x over n floats: memory bound, moves 8 bytes per element.
  void scale(std::size_t n, float a = 2.0f);
  // z = x + y over n floats: memory bound, moves 12 bytes per element.
  void add(std::size_t n);
  // z = x + a * x over n floats: scale then add fused into one kernel, y never written. Moves
  // 8 bytes per element where scale and add move 20.
  void scale_add(std::size_t n, float a = 2.0f);
  // Each thread runs `iterations` dependent FMAs on registers: compute bound, no traffic.
  void fma(std::size_t n, int iterations);
  // Busy-waits for `microseconds` on every SM: a kernel of known duration.
  void spin(double microseconds);
  // Blocks until every launched kernel finished; throws CudaError on a launch error.
  void synchronize();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kprof::demo
