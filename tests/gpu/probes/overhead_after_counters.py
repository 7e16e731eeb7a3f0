"""What the overhead disclosure tells after a counter profile, and why (docs/validation.md,
2026-12-04, fifth session). Run on a GPU with torch and CuPy:

  python3 tests/gpu/probes/overhead_after_counters.py disclosure   # ProfilingOverhead per config
  python3 tests/gpu/probes/overhead_after_counters.py launches     # first launches after a profile

"disclosure": three identical configs of a torch fp32 matmul 4096, 4 runs, in the duration mode
and each counter mode: what profiling added per config, and each run's time.
"launches": after a counter profile (disclose_overhead=False), the first launches of kernels of
other modules and functions, timed alone.
"""

import sys
import time

import kprof
import torch

a, b = (torch.randn(4096, 4096, device="cuda") for _ in range(2))
QUIET = kprof.VerbosityLevel.SILENT


def profile(replay, metrics, disclose=True, configs=(1, 2, 3), runs=4):
    @kprof.analyze.kernel(
        configs=list(configs),
        runs=runs,
        metrics=metrics,
        replay_mode=replay,
        disclose_overhead=disclose,
        verbosity=QUIET,
    )
    def mm(i):
        with kprof.annotate("mm"):
            torch.matmul(a, b)

    return mm()


def disclosure():
    cases = [("auto", ["gpu__time_duration.sum"])]
    cases += [
        (m, ["gpu__time_duration.sum", "dram__bytes_read.sum"])
        for m in ("kernel", "range", "application")
    ]
    for replay, metrics in cases:
        r = profile(replay, metrics)
        df = r.to_dataframe()
        df = df[df["Metric"] == "gpu__time_duration.sum"]
        print(replay, len(metrics), "metric(s)")
        print(df[["i", "AvgValue", "ProfilingOverhead"]].to_string())
        runs = r.runs_dataframe()
        print(runs.groupby("Config")["Seconds"].apply(lambda s: [round(1e3 * x, 3) for x in s]))


def launches():
    import cupy

    x, y = torch.rand(1024, device="cuda"), torch.rand(1024, device="cuda")
    z = cupy.zeros(1, dtype=cupy.float32)
    noop = cupy.RawKernel(r'extern "C" __global__ void noop() {}', "noop")
    noop2 = cupy.RawKernel(
        r'extern "C" __global__ void noop2(float* p) { if (p == 0) p[0] = 1; }', "noop2"
    )
    steps = {
        "noop": lambda: noop((1,), (1,), ()),
        "noop2": lambda: noop2((1,), (1,), (z,)),
        "add": lambda: x.add_(1),
        "mul": lambda: y.mul_(1),
        "mm": lambda: torch.matmul(a, b),
        "sync": lambda: None,
    }

    def timed(step):
        t0 = time.perf_counter()
        steps[step]()
        torch.cuda.synchronize()
        return round(1e3 * (time.perf_counter() - t0), 3)

    for step in steps:
        timed(step)  # loaded, compiled
    plans = [
        ["mm", "mm", "mm"],
        ["noop", "noop2", "mm", "mm"],
        ["noop", "add", "mul", "mm", "mm"],
        ["add", "add", "mul", "mm", "mm"],
        ["sync", "mm", "mm"],
    ]
    for replay in ("kernel", "range"):
        for plan in plans:
            profile(replay, ["dram__bytes_read.sum"], disclose=False, configs=(1,), runs=2)
            print(f"{replay:7}", [(s, timed(s)) for s in plan])
    print("steady ", [(s, timed(s)) for s in ("noop", "noop2", "add", "mul", "mm")])


if __name__ == "__main__":
    {"disclosure": disclosure, "launches": launches}[
        sys.argv[1] if len(sys.argv) > 1 else "disclosure"
    ]()
