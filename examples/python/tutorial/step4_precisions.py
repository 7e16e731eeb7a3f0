"""Tutorial step 4: sweep matrix sizes in fp32 and fp16, with a derived TFLOP/s metric, then
the same sweep normalised against fp32 (every statistic divided by fp32's mean)."""

import kprof
import torch

SIZES = [1024, 2048, 4096, 8192]
inputs = {n: (torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")) for n in SIZES}


def tflops(duration_ns, n):
    return 2 * n**3 / duration_ns / 1e3, "TFLOP/s"


def sweep(**options):
    @kprof.analyze.kernel(configs=SIZES, runs=10, derive_metric=tflops, **options)
    def precisions(n):
        a, b = inputs[n]
        a16, b16 = a.half(), b.half()
        with kprof.annotate("fp32"):
            a @ b
        with kprof.annotate("fp16"):
            a16 @ b16

    df = precisions().to_dataframe()
    return df[df["Metric"] == "tflops"]


columns = ["Annotation", "n", "AvgValue", "CI95_Lower", "CI95_Upper", "Unit"]
print(sweep()[columns].to_string(index=False))
print(sweep(normalize_against="fp32")[columns].to_string(index=False))
