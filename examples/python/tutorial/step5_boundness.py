"""Tutorial step 5: compute-bound or memory-bound? Three counters answer it.

SM throughput and DRAM throughput, each in % of its sustained peak, with the duration: the
higher of the two names the bottleneck. Hardware counters come from CUPTI's range profiler in
this process; sm__throughput needs 8 passes. For such a set kprof's default replay mode ("auto")
takes application replay: the function runs once per pass and the L2 is flushed before every
kernel in every pass, as Nsight Compute does, which CUPTI 13.0's kernel replay cannot do between
its passes: it matters for the 20 us softmax.

The rule "the higher of the two" is a first reading. kprof answers the question as Nsight Compute
does, from set:analysis (14 passes): results.analysis() gives Nsight Compute's verdict (latency
when both are under 60% of peak), the busiest unit, occupancy, the roofline and advice.
"""

import kprof as nsight
import torch

SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"

h, g = (torch.randn(4096, 4096, device="cuda", dtype=torch.float16) for _ in range(2))
hg = torch.empty_like(h)
x = torch.rand(2**26, device="cuda")
y = torch.empty_like(x)
s = torch.randn(8192, 1024, device="cuda")
ops = {
    "matmul fp16 4096": lambda: torch.matmul(h, g, out=hg),
    "scale 256 MiB": lambda: torch.mul(x, 2.0, out=y),
    "softmax 8192x1024": lambda: torch.softmax(s, dim=1),
}


@nsight.analyze.kernel(metrics=["gpu__time_duration.sum", SM, DRAM], runs=3)
def boundness():
    for name, op in ops.items():
        with nsight.annotate(name):
            op()


df = boundness().to_dataframe()
table = df.pivot_table(index="Annotation", columns="Metric", values="AvgValue")
table["bound by"] = [
    "compute" if sm > dram else "memory" for sm, dram in zip(table[SM], table[DRAM], strict=True)
]
table = table.rename(columns={"gpu__time_duration.sum": "us", SM: "SM %", DRAM: "DRAM %"})
table["us"] /= 1e3
print(table.round(1).to_string())


@nsight.analyze.kernel(metrics=["set:analysis"], runs=3)
def what_limits():
    for name, op in ops.items():
        with nsight.annotate(name):
            op()


analysis = what_limits().analysis().set_index("Annotation")
columns = ["Bound", "Verdict", "SMThroughputPct", "MemoryThroughputPct", "LimitingUnit"]
print(analysis[columns + ["AchievedTFLOPs"]].round(1).to_string())
for name, advice in analysis["Advice"].items():
    print(f"{name}: {advice}")
