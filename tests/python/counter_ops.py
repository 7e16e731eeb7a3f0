"""The torch operations of the hardware-counter validation, shared with the ncu child process.

Each op is one region; the expected DRAM traffic follows from its shapes:
  scale     y = 2x over 2^26 floats: 256 MiB read, 256 MiB written
  matmul16  fp16 4096 x 4096 x 4096: compute bound
  softmax   over 8192 x 1024 floats along rows: 32 MiB read, 32 MiB written, memory bound
  unfused   a + b * c as two kernels over 2^25 floats: 4 reads and 2 writes of 128 MiB
  addcmul   the same in one kernel (torch.addcmul): 3 reads and 1 write of 128 MiB
  total     the sum of scale's 2^26 floats: 256 MiB read, 4 bytes written
"""

from __future__ import annotations

import sys

RUNS = 3
N_SCALE = 2**26
N_FUSION = 2**25


def make_ops(torch):
    """name -> callable, each writing out of place so that every replay does the same work."""
    x = torch.rand(N_SCALE, device="cuda")
    y = torch.empty_like(x)
    h = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    g = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    hg = torch.empty(4096, 4096, device="cuda", dtype=torch.float16)
    s = torch.randn(8192, 1024, device="cuda")
    a, b, c = (torch.rand(N_FUSION, device="cuda") for _ in range(3))
    t, out = torch.empty_like(a), torch.empty_like(a)
    z = torch.empty((), device="cuda")
    return {
        "scale": lambda: torch.mul(x, 2.0, out=y),
        "matmul16": lambda: torch.matmul(h, g, out=hg),
        "softmax": lambda: torch.softmax(s, dim=1),
        "unfused": lambda: torch.add(a, torch.mul(b, c, out=t), out=out),
        "addcmul": lambda: torch.addcmul(a, b, c, out=out),
        "total": lambda: torch.sum(x, 0, out=z),
    }


def region_means(kprof, ops, names, metrics, replay_mode, **options):
    """Profiles the ops `names`, each in its region, RUNS times; (annotation, metric) -> mean."""

    @kprof.analyze.kernel(
        metrics=metrics, runs=RUNS, replay_mode=replay_mode, thermal_mode="off", **options
    )
    def bench():
        for name in names:
            with kprof.annotate(name):
                ops[name]()

    for op in ops.values():
        op()
    df = bench().to_dataframe()
    return {(r.Annotation, r.Metric): r.AvgValue for r in df.itertuples()}


if __name__ == "__main__":
    from gpu_reference import run_ops_in_ranges

    run_ops_in_ranges(make_ops, sys.argv[1:], RUNS)
