"""Tutorial step 2: how many runs does a measurement need?

runs="auto" runs each config until the 95% interval of its mean is within 1% of the mean (at
least 5 runs, at most 100, 15 s per config), and says which rule stopped it.
"""

import kprof
import torch

SIZES = [256, 1024, 4096]
inputs = {n: (torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")) for n in SIZES}


# cuBLAS runs the 256 product as two kernels (a GEMM and a split-K reduction): their sum is it.
@kprof.analyze.kernel(configs=SIZES, runs="auto", combine_kernel_metrics="sum")
def matmul(n):
    a, b = inputs[n]
    with kprof.annotate("matmul"):
        a @ b


df = matmul().to_dataframe()
df["HalfWidth%"] = 100 * (df["CI95_Upper"] - df["AvgValue"]) / df["AvgValue"]
print(df[["n", "AvgValue", "RelativeStdDevPct", "HalfWidth%", "RunsDone", "StoppedBy"]].to_string())
