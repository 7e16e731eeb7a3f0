"""Tutorial step 8: in-process durations against Nsight Compute's, on the same kernels.

kprof measures three torch kernels here; then the same script, run as a child under
`ncu --metrics gpu__time_duration.sum --cache-control all --clock-control none`, measures them
again with Nsight Compute. Both flush the L2 before each kernel; kprof reports medians of 20 runs.
"""

import csv
import io
import shutil
import statistics
import subprocess
import sys

import kprof
import torch

RUNS = 20


def make_ops():
    x = torch.rand(2**26, device="cuda")
    y = torch.empty_like(x)
    a, b = torch.randn(2048, 2048, device="cuda"), torch.randn(2048, 2048, device="cuda")
    h, g = a.half(), b.half()
    return {
        "scale": lambda: torch.mul(x, 2.0, out=y),
        "matmul_fp32": lambda: a @ b,
        "matmul_fp16": lambda: h @ g,
    }


def child():
    ops = make_ops()
    for op in ops.values():
        op()
    for name, op in ops.items():
        for _ in range(RUNS):
            with kprof.annotate(name):
                op()
    torch.cuda.synchronize()


def ncu_median(name):
    """ncu's median duration of one region, its kernels summed per run."""
    cmd = [shutil.which("ncu"), "--nvtx", "--nvtx-include", f"kprof@{name}/"]
    cmd += ["--metrics", "gpu__time_duration.sum", "--cache-control", "all"]
    cmd += ["--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base"]
    out = subprocess.run(
        [*cmd, sys.executable, __file__, "--child"], capture_output=True, text=True, check=True
    ).stdout
    lines = [line for line in out.splitlines() if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    column = rows[0].index("gpu__time_duration.sum")
    values = [float(r[column].replace(",", "")) for r in rows[2:]]
    per_run = len(values) // RUNS  # kernels per run (cuBLAS may split a product in two)
    return statistics.median(sum(values[i * per_run : (i + 1) * per_run]) for i in range(RUNS))


if "--child" in sys.argv:
    child()
    sys.exit()
ops = make_ops()


# One value per region: the total of its kernels, as the ncu side above adds them up.
@kprof.analyze.kernel(runs=RUNS, combine_kernel_metrics="sum")
def timed():
    for name, op in ops.items():
        with kprof.annotate(name):
            op()


for op in ops.values():
    op()
df = timed().to_dataframe().set_index("Annotation")
for name in ops:
    k, n = df.loc[name, "Median"] / 1e3, ncu_median(name) / 1e3
    print(f"{name:12} kprof {k:8.2f} us   ncu {n:8.2f} us   {100 * (k / n - 1):+.2f}%")
