"""The kernels of the analysis validation, shared with the ncu child process: the seed's three
(counter_ops: fp16 matmul 4096, y = 2x over 256 MiB, softmax 8192 x 1024) and two that each
rule of the analysis must recognise:
  small_grid  y = 2x over 4096 floats: a few blocks on 132 SMs, well under one wave
  registers   64 accumulators live per thread, in blocks of 256: registers limit occupancy
"""

from __future__ import annotations

import sys

from counter_ops import RUNS
from counter_ops import make_ops as seed_ops

NAMES = ["matmul16", "scale", "softmax", "small_grid", "registers"]

# Fully unrolled with constant indices, the accumulators stay in registers (about 80 a thread).
REGISTERS_KERNEL = r"""
extern "C" __global__ void many_registers(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = x[i % n];
  float acc[64];
#pragma unroll
  for (int k = 0; k < 64; ++k) acc[k] = v * (k + 1);
  for (int it = 0; it < 64; ++it) {
#pragma unroll
    for (int k = 0; k < 64; ++k) acc[k] = fmaf(acc[k], acc[(k + 1) % 64], 1.0f);
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < 64; ++k) s += acc[k];
  y[i] = s;
}
"""
REGISTERS_BLOCK = 256
REGISTERS_GRID = 132 * 16


def make_ops(torch):
    """name -> callable for NAMES."""
    import cupy

    ops = seed_ops(torch)
    tiny = torch.rand(4096, device="cuda")
    tiny_out = torch.empty_like(tiny)
    kernel = cupy.RawKernel(REGISTERS_KERNEL, "many_registers")
    n = REGISTERS_BLOCK * REGISTERS_GRID
    x = cupy.random.rand(n, dtype=cupy.float32)
    y = cupy.empty_like(x)
    # torch and CuPy share the current device; CuPy's default stream is the legacy one, on
    # which torch's work is ordered too.
    ops["small_grid"] = lambda: torch.mul(tiny, 2.0, out=tiny_out)
    ops["registers"] = lambda: kernel((REGISTERS_GRID,), (REGISTERS_BLOCK,), (x, y, cupy.int32(n)))
    return {name: ops[name] for name in NAMES}


if __name__ == "__main__":
    from gpu_reference import run_ops_in_ranges

    run_ops_in_ranges(make_ops, sys.argv[1:], RUNS)
