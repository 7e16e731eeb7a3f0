"""Time torch.matmul over three sizes: the README's Python example."""

import kprof
import torch


@kprof.analyze.kernel(configs=[1024, 2048, 4096], runs=10)
def matmul(n):
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    with kprof.annotate("matmul"):
        a @ b


df = matmul().to_dataframe()
print(df[["Annotation", "n", "AvgValue", "CI95_Lower", "CI95_Upper", "NumRuns"]].to_string())
