// Kernels whose dominant stall reason is known by construction, for the PC sampling tests
// (compiled with -lineinfo: their PCs map to their lines).
#pragma once

#include <cstddef>

namespace kprof_test {

// The memory stall_chase walks: a random permutation of kChaseElements indices (256 MiB, far over
// the L2), each thread following its own chain, every load waiting on the one before.
inline constexpr std::size_t kChaseElements = std::size_t{1} << 26;

enum class StallKernel {
  chase,      // dependent global loads: the long scoreboard
  barrier,    // one warp of each block works, 31 wait at __syncthreads: the barrier
  fma_chain,  // one dependent FMA chain per thread, one warp per scheduler: fixed latency
};

// Allocates and fills what the kernels need (once per process), then launches `which` on the
// default stream; each runs for about a millisecond on an H100.
void launch_stall(StallKernel which);

// The line of stall_kernels.cu that holds stall_chase's dependent load.
int chase_load_line();

// A name the kernel's function name holds, as PC sampling reports it (mangled).
const char* stall_kernel_name(StallKernel which);

}  // namespace kprof_test
