"""An nsight-python script, unchanged but for its import: fp16 against fp32 matmul, with a
derived TFLOP/s metric normalised against fp32."""

import kprof as nsight
import torch


def tflops(duration_ns, n):
    return 2 * n**3 / duration_ns / 1e3, "TFLOP/s"


@nsight.analyze.kernel(
    configs=[(2048,), (4096,)], runs=10, derive_metric=tflops, normalize_against="fp32"
)
def precisions(n):
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    a16, b16 = a.half(), b.half()
    with nsight.annotate("fp32"):
        a @ b
    with nsight.annotate("fp16"):
        a16 @ b16


df = precisions().to_dataframe()
columns = ["Annotation", "Metric", "n", "AvgValue", "StdDev", "NormalizationValue", "Unit"]
print(df[columns].to_string())
