"""Independent references for kprof's GPU tests: CUDA events and Nsight Compute.

Each reference times the same torch operations kprof times, with the L2 flushed before each
run, so that the comparison is of timing methods and not of cache states.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
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


def ncu_environment():
    """This process's environment for Nsight Compute: ncu injects a CUPTI of its own, so a newer
    one preloaded for kprof (validate_h200.sh newer-cupti, flop) is not passed on, nor its folder
    on the library path."""
    env = dict(os.environ)
    preloaded = {os.path.dirname(lib) for lib in re.split(r"[\s:]+", env.pop("LD_PRELOAD", ""))}
    if "LD_LIBRARY_PATH" in env:
        paths = env["LD_LIBRARY_PATH"].split(os.pathsep)
        env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in paths if p and p not in preloaded)
    return env


def run_ncu_job(tool, out, timeout=600):
    """tests/python/ncu_job.py as `tool` (cupti, flop: kprof's engine; ncu, ncu-sections,
    ncu-flop: Tool.NCU, in ncu_environment()) in a child process that finds this one's packages;
    returns the JSON it wrote under `out`."""
    env = ncu_environment() if tool.startswith("ncu") else dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), *sys.path]))
    done = subprocess.run(
        [sys.executable, str(HERE / "ncu_job.py"), tool, str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return json.loads((Path(out) / f"{tool}.json").read_text())


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
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, env=ncu_environment()
    )
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
