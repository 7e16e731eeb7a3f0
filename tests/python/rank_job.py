"""A job the rank tests launch (torchrun, mpirun) or call (devices): each rank profiles a
scale kernel over a small sweep and rank 0 prints the merged table as JSON lines.

    torchrun --nproc_per_node 4 rank_job.py durations OUT
    mpirun -np 2 python rank_job.py counters OUT
"""

from __future__ import annotations

import json
import sys

import kprof
import torch

SIZES = [2**22, 2**24]
COUNTERS = ["gpu__time_duration.sum", "dram__bytes_read.sum"]


@kprof.analyze.kernel(configs=SIZES, runs=3, verbosity=kprof.VerbosityLevel.SILENT)
def durations(n: int) -> None:
    x = torch.ones(n, device="cuda")
    with kprof.annotate("scale"):
        torch.mul(x, 2.0)


@kprof.analyze.kernel(
    configs=SIZES,
    runs=2,
    metrics=COUNTERS,
    wait_for_counters=120,
    verbosity=kprof.VerbosityLevel.SILENT,
)
def counters(n: int) -> None:
    x = torch.ones(n, device="cuda")
    with kprof.annotate("scale"):
        torch.mul(x, 2.0)


def _scale(n: int) -> None:
    x = torch.ones(n, device="cuda")
    with kprof.annotate("scale"):
        torch.mul(x, 2.0)


# One sweep of four configs, in this process and shared between two workers on GPU 0.
SWEEP = [2**22, 2**23, 2**24, 2**25]
one_worker = kprof.analyze.kernel(configs=SWEEP, runs=5, verbosity=0)(_scale)


@kprof.analyze.kernel(configs=SWEEP, runs=5, verbosity=0, devices=[0, 0])
def two_workers(n: int) -> None:
    _scale(n)


@kprof.analyze.kernel(configs=SWEEP, runs=2, verbosity=0, devices=[0, 0])
def second_worker_fails(n: int) -> None:
    if n == SWEEP[-1]:
        raise ValueError("the last config fails")
    _scale(n)


def main(kind: str, out: str) -> None:
    info = kprof.rank_info()
    torch.cuda.set_device(info["local_rank"] % torch.cuda.device_count())
    if info["launcher"] == "torchrun":
        torch.distributed.init_process_group("gloo")
    results = {"durations": durations, "counters": counters}[kind]()
    results.save(f"{out}.rank{info['rank']}.json", overwrite=True)
    merged = kprof.gather(results, folder=out + ".gather")
    if merged is None:
        return
    df = merged.to_dataframe()
    summary = {
        "channel": "torch" if torch.distributed.is_initialized() else "other",
        "ranks": list(map(int, df["Rank"])),
        "metrics": list(df["Metric"]),
        "values": list(map(float, df["AvgValue"])),
        "imbalance_ranks": list(map(int, merged.imbalance()["Ranks"])),
        "table": merged.table(),
    }
    with open(out, "w") as f:
        json.dump(summary, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
