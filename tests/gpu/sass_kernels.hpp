// Kernels of known FP32/FP64/FP16 instruction counts, for the SASS counter's GPU test.
#pragma once

#include "test_kernels.hpp"

namespace kprof_test {

inline constexpr int kSassIters = 1000;
inline constexpr int kSassBlocks = 264;
inline constexpr int kSassThreads = 256;

// timed_ffma is ffma under another name, for the one test that times a kernel before it is first
// counted in its process.
enum class SassKernel { ffma, fadd_fmul, dfma, hfma2, timed_ffma };

// Launches one kernel of kSassBlocks x kSassThreads threads on the default stream; `out` holds
// one double per thread.
void launch_sass(SassKernel which, void* out);

}  // namespace kprof_test
