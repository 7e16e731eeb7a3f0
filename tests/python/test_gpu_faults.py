"""Faults a profile meets on the GPU, through the Python API (needs a GPU and PyTorch).

Ctrl-C, out of memory, an illegal memory access (in a child process: it costs the process its
CUDA context), another tool holding CUPTI, and a second profile from another thread.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import textwrap
import threading

import kprof
import pytest
from kprof import errors

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

SILENT = kprof.VerbosityLevel.SILENT
N = 1 << 20


@pytest.fixture(scope="module")
def x():
    return torch.rand(N, device="cuda")


def finite_runs(results, column="c"):
    """Runs with a value per config of `results`."""
    raw = results.raw_dataframe()
    raw = raw[raw["Metric"] == "gpu__time_duration.sum"]
    return {int(c): int(sum(math.isfinite(v) for v in g["Value"])) for c, g in raw.groupby(column)}


def test_ctrl_c_keeps_the_runs_made_and_saves_them(x, tmp_path, capsys):
    calls = []

    @kprof.analyze.kernel(configs=[0, 1, 2], runs=5, output_prefix=str(tmp_path / "run-"))
    def scale(c):
        calls.append(c)
        with kprof.annotate("scale"):
            x.mul_(1.0)
        if len(calls) == 8:  # config 1, run 2: as if Ctrl-C were pressed now
            signal.raise_signal(signal.SIGINT)

    with pytest.raises(KeyboardInterrupt) as info:
        scale()
    partial = info.value.partial_results
    assert isinstance(partial, kprof.ProfileResults)
    assert finite_runs(partial) == {0: 5, 1: 2}
    saved = tmp_path / "run-partial-scale-0.json"
    assert kprof.load(saved) == partial
    out = capsys.readouterr().out
    assert (
        f"[kprof] scale-0: interrupted; 7 runs of 2 configs measured before are kept in "
        f"partial_results and saved to {saved}" in out
    )
    assert len(calls) == 8  # nothing ran after the interrupt


def test_out_of_memory_in_a_region_keeps_the_runs_before(x):
    @kprof.analyze.kernel(configs=[0, 1], runs=2, verbosity=SILENT)
    def grow(c):
        with kprof.annotate("scale"):
            x.mul_(1.0)
            if c == 1:
                torch.empty(1 << 50, device="cuda")  # a pebibyte

    with pytest.raises(errors.UserFunctionError) as info:
        grow()
    assert isinstance(info.value.__cause__, torch.OutOfMemoryError)
    assert "config 2/2" in str(info.value)
    assert finite_runs(info.value.partial_results) == {0: 2}


def test_out_of_memory_in_a_region_that_ignores_failures_is_nan(x):
    @kprof.analyze.kernel(configs=[0, 1], runs=2, verbosity=SILENT)
    def grow(c):
        with kprof.annotate("scale", ignore_failures=True):
            x.mul_(1.0)
            if c == 1:
                torch.empty(1 << 50, device="cuda")

    df = grow().to_dataframe()
    assert math.isfinite(df["AvgValue"].iloc[0]) and math.isnan(df["AvgValue"].iloc[1])


def test_a_profile_from_a_second_thread_while_one_runs_is_refused(x):
    inside, release, done = threading.Event(), threading.Event(), []

    @kprof.analyze.kernel(configs=[0], runs=1, verbosity=SILENT)
    def slow(c):
        with kprof.annotate("scale"):
            x.mul_(1.0)
        inside.set()
        release.wait(30)

    @kprof.analyze.kernel(configs=[0], runs=1, verbosity=SILENT)
    def other(c):
        with kprof.annotate("scale"):
            x.mul_(1.0)

    first = threading.Thread(target=lambda: done.append(slow()))
    first.start()
    try:
        assert inside.wait(30)
        with pytest.raises(errors.CuptiBusyError, match="another thread"):
            other()
    finally:
        release.set()
        first.join(60)
    assert len(done) == 1 and done[0].to_dataframe()["AvgValue"].iloc[0] > 0
    assert other().to_dataframe()["AvgValue"].iloc[0] > 0  # after it, the second one runs


# An illegal memory access from a kernel in config 1, run 1, through the driver API (a PTX
# kernel that stores through address 16). The child prints what it saw as JSON.
FAULT_CHILD = textwrap.dedent(
    r'''
    import ctypes, json, math, sys
    import kprof, torch

    PTX = b""".version 8.0
    .target sm_90
    .address_size 64
    .visible .entry poke(.param .u64 p) {
      .reg .b64 %rd<2>;
      .reg .b32 %r<2>;
      ld.param.u64 %rd1, [p];
      mov.u32 %r1, 1;
      st.global.u32 [%rd1], %r1;
      ret;
    }
    """
    x = torch.rand(1 << 20, device="cuda")
    cuda = ctypes.CDLL("libcuda.so.1")
    module, poke = ctypes.c_void_p(), ctypes.c_void_p()
    assert cuda.cuModuleLoadData(ctypes.byref(module), PTX) == 0
    assert cuda.cuModuleGetFunction(ctypes.byref(poke), module, b"poke") == 0
    address = ctypes.c_uint64(16)
    params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(address), ctypes.c_void_p))
    calls = []
    metrics = sys.argv[2].split(",")

    @kprof.analyze.kernel(configs=[0, 1, 2], runs=3, metrics=metrics,
                          output_prefix=sys.argv[1], verbosity=kprof.VerbosityLevel.INFO)
    def faulty(c):
        calls.append(c)
        with kprof.annotate("scale"):
            x.mul_(1.0)
            if c == 1 and calls.count(1) == 2:
                cuda.cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, None, params, None)
        torch.cuda.synchronize()

    seen = {}
    try:
        faulty()
    except BaseException as e:
        partial = e.partial_results
        raw = partial.raw_dataframe() if partial is not None else None
        seen = {"type": type(e).__name__, "message": str(e),
                "cause": type(e.__cause__).__name__ if e.__cause__ else None,
                "finite": {} if raw is None else {
                    str(c): int(sum(math.isfinite(v) for v in g["Value"]))
                    for c, g in raw[raw["Metric"] == "gpu__time_duration.sum"].groupby("c")}}
    print("RESULT " + json.dumps(seen), flush=True)
    '''
)


@pytest.mark.parametrize(
    "metrics", ["gpu__time_duration.sum", "gpu__time_duration.sum,dram__bytes_read.sum"]
)
def test_an_illegal_memory_access_loses_the_context_says_so_and_keeps_the_configs_before(
    tmp_path, metrics
):
    prefix = tmp_path / "out-"
    child = subprocess.run(
        [sys.executable, "-c", FAULT_CHILD, str(prefix), metrics],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, child.stderr[-3000:]  # the process ends by itself
    line = next(x for x in child.stdout.splitlines() if x.startswith("RESULT "))
    seen = json.loads(line[len("RESULT ") :])
    assert seen["type"] == "GpuFaultError", seen
    assert "context of this process is lost" in seen["message"]
    assert "cudaErrorIllegalAddress" in seen["message"]
    # The runs made are kept; no value read after the fault is a number.
    assert "0" in seen["finite"] and seen["finite"].get("1", 0) == 0, seen
    saved = kprof.load(tmp_path / "out-partial-faulty-0.json")
    kept = finite_runs(saved)
    assert 0 in kept and kept.get(1, 0) == 0, kept
    assert "saved to" in child.stdout


TORCH_PROFILER_CHILD = textwrap.dedent(
    r"""
    import kprof, torch
    x = torch.rand(1024, device="cuda")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):
        x.mul_(2.0)
        torch.cuda.synchronize()

    @kprof.analyze.kernel(configs=[0], runs=1, verbosity=kprof.VerbosityLevel.SILENT)
    def after(c):
        with kprof.annotate("scale"):
            x.mul_(1.0)

    try:
        after()
        print("RESULT ran")
    except kprof.errors.CuptiBusyError as e:
        print("RESULT CuptiBusyError " + e.holder)
    """
)


def test_torch_profiler_earlier_in_the_process_is_a_clear_cupti_busy_error():
    child = subprocess.run(
        [sys.executable, "-c", TORCH_PROFILER_CHILD], capture_output=True, text=True, timeout=300
    )
    assert child.returncode == 0, child.stderr[-3000:]
    assert "RESULT CuptiBusyError" in child.stdout, child.stdout[-2000:]
