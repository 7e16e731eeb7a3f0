"""Profile a Triton kernel that tunes itself (triton.autotune): its first call for a size runs
every configuration to pick one. Without warm-up that first call is the first run, and kprof
warns that it launched other kernels than the runs after it; warmup=1 makes the choice before
measuring.
"""

import kprof
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (256, 1024) for w in (4, 8)],
    key=["n"],
)
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, 2.0 * tl.load(x_ptr + offsets, mask=mask), mask=mask)


def scale(x, y):
    n = x.numel()
    scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)


@kprof.analyze.kernel(configs=[2**22, 2**24], runs=10, warmup=1)
def tuned(n):
    x = torch.rand(n, device="cuda")
    y = torch.empty_like(x)
    with kprof.annotate("scale"):
        scale(x, y)


df = tuned().to_dataframe()
print(df[["Annotation", "n", "AvgValue", "RelativeStdDevPct", "NumRuns"]].to_string())
