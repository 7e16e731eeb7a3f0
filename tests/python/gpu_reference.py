"""Independent references for kprof's GPU tests: CUDA events and Nsight Compute.

Each reference times the same torch operations kprof times, with the L2 flushed before each
run, so that the comparison is of timing methods and not of cache states.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


class ReadFlush:
    """Evicts the L2 by reading a buffer twice its size, as kprof's flush does: a memset would
    leave dirty lines that the timed kernel then writes back."""

    def __init__(self, torch):
        l2 = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size
        self._buffer = torch.zeros(2 * l2 // 4, dtype=torch.int32, device="cuda")

    def zero_(self):
        """Named after the tensor method the earlier memset flush used."""
        self._buffer.max()  # a reduction: reads every word


def flush_scratch(torch):
    """An object whose zero_() evicts the L2 the way kprof's flush does."""
    return ReadFlush(torch)


def event_medians_us(torch, op, runs, scratch=None):
    """Median of CUDA-event durations of op() over runs, in microseconds."""
    op()  # warm-up
    pairs = []
    for _ in range(runs):
        if scratch is not None:
            scratch.zero_()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        op()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return statistics.median(1e3 * s.elapsed_time(e) for s, e in pairs)


def ncu_kernel_metrics(
    child_args, ranges, metrics, cache_control="all", timeout=300, replay_mode="kernel"
):
    """Run `python child_args` under ncu, profiling the kernels in the given kprof NVTX ranges.

    Returns one dict per profiled kernel, in launch order: metric name -> value in base units,
    plus "range" (the NVTX range that selected it, when ncu reports it).
    """
    ncu = shutil.which("ncu")
    if ncu is None:
        raise FileNotFoundError("ncu is not on PATH")
    cmd = [ncu, "--nvtx", "--metrics", ",".join(metrics), "--cache-control", cache_control]
    cmd += ["--replay-mode", replay_mode]
    cmd += ["--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base"]
    for name in ranges:
        cmd += ["--nvtx-include", f"kprof@{name}/"]
    cmd += [sys.executable, *child_args]
    # ncu injects a CUPTI of its own: a newer one preloaded for kprof (validate_h200.sh
    # newer-cupti) is not passed on.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-3000:]
        raise RuntimeError(f"ncu exited with {done.returncode}:\n{tail}")
    lines = [line for line in done.stdout.splitlines() if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header, data = rows[0], rows[2:]  # rows[1] holds the units
    kernels = []
    for r in data:
        kernel = {m: float(r[header.index(m)].replace(",", "")) for m in metrics}
        kernel["name"] = r[header.index("Kernel Name")] if "Kernel Name" in header else ""
        kernels.append(kernel)
    return kernels


def ncu_kernel_durations_ns(child_args, ranges, cache_control="all", timeout=300):
    """gpu__time_duration.sum of every kernel in the given kprof NVTX ranges, in launch order."""
    metric = "gpu__time_duration.sum"
    kernels = ncu_kernel_metrics(child_args, ranges, [metric], cache_control, timeout)
    return [k[metric] for k in kernels]


def run_ops_in_ranges(make_ops, names, runs):
    """The child process an ncu comparison profiles: each named op `runs` times inside its
    kprof NVTX range, after a warm-up of every op outside any range (not profiled)."""
    import kprof
    import torch

    ops = make_ops(torch)
    for op in ops.values():
        op()
    for name in names:
        for _ in range(runs):
            with kprof.annotate(name):
                ops[name]()
    torch.cuda.synchronize()


def record(name, figures):
    """Keep figures for docs/validation.md when KPROF_VALIDATION_DIR is set."""
    folder = os.environ.get("KPROF_VALIDATION_DIR")
    if not folder:
        return
    path = Path(folder) / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2, default=str))
