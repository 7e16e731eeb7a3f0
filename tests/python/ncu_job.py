"""A script the Nsight Compute test runs twice: with kprof's engine and with Tool.NCU (which runs
this script again under ncu). Writes the durations, kernel names and report path as JSON.

    python ncu_job.py cupti|ncu OUT_FOLDER
"""

from __future__ import annotations

import json
import sys

import kprof
import torch

tool, out = sys.argv[1], sys.argv[2]
if tool == "ncu":
    kprof.activate(kprof.Tool.NCU)


@kprof.analyze.kernel(configs=[2**24, 2**26], runs=5, output_prefix=out + "/", verbosity=0)
def scale(n):
    x = torch.ones(n, device="cuda")
    with kprof.annotate("scale"):
        torch.mul(x, 2.0)


results = scale()
df = results.to_dataframe()
summary = {
    "values": [float(v) for v in df["AvgValue"]],
    "kernels": list(df["Kernel"]),
    "backend": results.session["backend"],
    "report": getattr(results, "ncu_report", None),
}
with open(f"{out}/{tool}.json", "w") as f:
    json.dump(summary, f)
