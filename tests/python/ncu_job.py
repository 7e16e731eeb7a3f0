"""A script the Nsight Compute test runs twice: with kprof's engine and with Tool.NCU (which runs
this script again under ncu). Writes the durations, kernel names and report path as JSON.

    python ncu_job.py cupti|ncu|ncu-sections|ncu-flop|flop OUT_FOLDER

ncu-sections measures with Nsight Compute's basic set and one more section: the report holds
them, the DataFrame the duration. ncu-flop measures set:analysis and set:flop on an fp32, an fp64
and an fp16 scale (one multiply an element) and writes results.analysis() instead; flop does the
same with kprof's engine, which counts set:flop in the process (CUPTI 13.5 or later).
"""

from __future__ import annotations

import json
import sys

import kprof
import torch

tool, out = sys.argv[1], sys.argv[2]
if tool.startswith("ncu"):
    kprof.activate(kprof.Tool.NCU)
METRICS = ["set:basic", "section:MemoryWorkloadAnalysis"] if tool == "ncu-sections" else None


@kprof.analyze.kernel(
    configs=[2**26, 2**27],
    runs=5,
    output_prefix=f"{out}/{tool}-",
    verbosity=0,
    metrics=METRICS or ["gpu__time_duration.sum"],
)
def scale(n):
    x = torch.ones(n, device="cuda")
    with kprof.annotate("scale"):
        torch.mul(x, 2.0)


if tool.endswith("flop"):

    @kprof.analyze.kernel(
        configs=[2**26],
        runs=2,
        output_prefix=f"{out}/{tool}-",
        verbosity=0,
        metrics=["set:analysis", "set:flop"],
    )
    def scales(n):
        for name, dtype in (
            ("scale32", torch.float32),
            ("scale64", torch.float64),
            ("scale16", torch.float16),
        ):
            x = torch.ones(n, device="cuda", dtype=dtype)
            with kprof.annotate(name):
                torch.mul(x, 2.0)

    measured = scales()
    measured.save(f"{out}/{tool}-results.json")
    df = measured.to_dataframe()
    durations = df[df["Metric"] == "gpu__time_duration.sum"]
    summary = {
        "analysis": json.loads(measured.analysis().to_json(orient="records")),
        "durations": dict(
            zip(durations["Annotation"], durations["AvgValue"].astype(float), strict=True)
        ),
    }
    with open(f"{out}/{tool}.json", "w") as f:
        json.dump(summary, f)
    sys.exit(0)

results = scale()
df = results.to_dataframe()
summary = {
    "values": [float(v) for v in df["AvgValue"]],
    "kernels": list(df["Kernel"]),
    "metrics": sorted(set(df["Metric"])),
    "backend": results.session["backend"],
    "report": getattr(results, "ncu_report", None),
}
with open(f"{out}/{tool}.json", "w") as f:
    json.dump(summary, f)
