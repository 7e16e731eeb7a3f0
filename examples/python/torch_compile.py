"""Profile a torch.compile'd function: Inductor fuses sin(x) * y + 1 into one Triton kernel.

warmup=1 calls the function once per config before measuring, so that compilation (and the
first call's module loads) stay out of the runs. cache_control="none" keeps the L2 warm between
runs, as in a training loop, and makes the numbers comparable with torch.profiler's.
"""

import kprof
import torch


@torch.compile
def fused(x, y):
    return torch.sin(x) * y + 1


@kprof.analyze.kernel(configs=[2**20, 2**24], runs=10, warmup=1, cache_control="none")
def compiled(n):
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    with kprof.annotate("fused"):
        fused(x, y)


df = compiled().to_dataframe()
print(df[["Annotation", "n", "Kernel", "AvgValue", "RelativeStdDevPct", "NumRuns"]].to_string())
