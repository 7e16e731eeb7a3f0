"""Compiled and tuned code on the GPU: torch.compile's fused Triton kernel against
torch.profiler, a triton.autotune kernel whose first call tunes (the warning without warm-up,
none with warmup=1), and a jax.jit function. The packages are on the GPU machine: a missing
one fails these tests rather than skipping them."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
kprof = pytest.importorskip("kprof")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"
N = 2**24


# torch.profiler keeps CUPTI until its process ends: the comparison runs in a child process,
# kprof first.
COMPILED_CHILD = """
import json, statistics, sys
import kprof, torch

@torch.compile
def fused(x, y):
    return torch.sin(x) * y + 1

x, y = torch.rand(2**24, device="cuda"), torch.rand(2**24, device="cuda")

@kprof.analyze.kernel(runs=20, warmup=1, cache_control="none", thermal_mode="off")
def bench():
    with kprof.annotate("fused"):
        fused(x, y)

df = bench().to_dataframe()
kernel = df["Kernel"].iloc[0]
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        fused(x, y)
    torch.cuda.synchronize()
theirs = [e.device_time_total for e in prof.events() if e.name == kernel]
print(json.dumps({"kernel": kernel, "kprof_ns": float(df["AvgValue"].iloc[0]),
                  "profiler_us": theirs}))
"""


def test_torch_compile_fused_kernel_matches_torch_profiler():
    import triton  # noqa: F401  (Inductor's kernels are Triton's)

    done = subprocess.run(
        [sys.executable, "-c", COMPILED_CHILD], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "first run launched" not in done.stdout
    found = json.loads(done.stdout.strip().splitlines()[-1])
    kernel, ours, theirs = found["kernel"], found["kprof_ns"], found["profiler_us"]
    assert kernel.startswith("triton_"), kernel  # one fused Inductor kernel
    assert len(theirs) == 20, found
    print(
        f"[ RESULT ] {kernel}: kprof {ours / 1e3:.2f} us, torch.profiler "
        f"{statistics.mean(theirs):.2f} us"
    )
    assert ours / 1e3 == pytest.approx(statistics.mean(theirs), rel=0.05)


def _autotuned_profile(warmup: int):
    import triton
    import triton.language as tl

    @triton.autotune(
        configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (256, 1024) for w in (4, 8)],
        key=["n"],
    )
    @triton.jit
    def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(y_ptr + offsets, 2.0 * tl.load(x_ptr + offsets, mask=mask), mask=mask)

    x = torch.rand(N, device="cuda")
    y = torch.empty_like(x)

    @kprof.analyze.kernel(runs=5, warmup=warmup, combine_kernel_metrics="sum", thermal_mode="off")
    def bench():
        with kprof.annotate("scale"):
            scale_kernel[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](x, y, N)

    return bench()


def test_an_autotuning_first_run_is_warned_of_and_warm_up_removes_it(capsys):
    cold = _autotuned_profile(warmup=0)
    out = capsys.readouterr().out
    assert "its first run launched other kernels than its second" in out, out
    assert "warmup=1" in out
    first = cold.raw_dataframe()
    assert first[first["Run"] == 0]["Value"].iloc[0] > first[first["Run"] == 1]["Value"].iloc[0]
    warm = _autotuned_profile(warmup=1)
    assert "first run launched" not in capsys.readouterr().out
    assert warm.to_dataframe()["RelativeStdDevPct"].iloc[0] < 10


def test_a_jax_jit_function_is_measured_in_its_region():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "jax_jit.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    print(done.stdout)
    lines = [line for line in done.stdout.splitlines() if " gelu " in f" {line} "]
    assert len(lines) == 2, done.stdout  # one row per size, each of 10 runs
    assert all(line.rstrip().endswith("10") for line in lines), done.stdout
