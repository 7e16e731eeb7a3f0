"""Two processes that both want the hardware counters of GPU 0 (needs a GPU).

A GPU's counters serve one process at a time (docs/metrics.md, "Counters are exclusive per
GPU"). The first process holds them: it signals through a file from inside a measured run and
stays in that run until the test releases it, so the two overlap however fast each starts.
Without wait_for_counters the second gets CountersBusyError naming the GPU while the first
finishes; with wait_for_counters=60 the second waits, says so, and both finish with results.
A third case races: a process that read the counters' availability before the holder took them
finds them busy at its first pass (CUPTI's Start), where it waits too, or raises with
partial_results. All four passed on the H200 (driver 580, CUPTI 13.0) when they were written.
The kernels are kprof's demo kernels (kprof._core.DemoKernels): no framework needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

kprof = pytest.importorskip("kprof")

COUNTERS = ["gpu__time_duration.sum", "dram__bytes_read.sum"]

CHILD = textwrap.dedent(
    r"""
    import json, os, sys, time
    import kprof
    from kprof import _core

    role, signal_dir, wait = sys.argv[1], sys.argv[2], float(sys.argv[3])
    metrics = json.loads(sys.argv[4])
    k = _core.DemoKernels(1 << 22)
    calls = []

    def touch(name):
        open(os.path.join(signal_dir, name), "w").close()

    @kprof.analyze.kernel(
        configs=[0, 1], runs=5, metrics=metrics, replay_mode="kernel", cache_control="none",
        wait_for_counters=wait, thermal_mode="off", combine_kernel_metrics="sum",
    )
    def spin(c):
        calls.append(c)
        with kprof.annotate("spin"):
            k.spin(20_000)  # 20 ms
            k.scale(1 << 22)
        k.synchronize()
        # The third call is a measured run (one unmeasured call per config comes first, in
        # kernel replay): the counters are this process's. Hold them until released.
        # A racer has read the counters' availability and enabled its profiler (the first
        # call is its unmeasured one, before any pass): the holder may take them now.
        if role == "racer" and len(calls) == 1:
            touch("configured")
            deadline = time.monotonic() + 120
            while not os.path.exists(os.path.join(signal_dir, "holding")):
                if time.monotonic() > deadline:
                    raise RuntimeError("nobody took the counters")
                time.sleep(0.01)
        if role == "holder" and len(calls) == 3:
            touch("holding")
            deadline = time.monotonic() + 120
            while not os.path.exists(os.path.join(signal_dir, "release")):
                if time.monotonic() > deadline:
                    raise RuntimeError("never released")
                time.sleep(0.01)

    try:
        results = spin()
        seen = {"type": "ok", "rows": len(results.to_dataframe())}
    except kprof.errors.KprofError as e:
        seen = {"type": type(e).__name__, "message": str(e),
                "holder": getattr(e, "holder", None),
                "is_cupti_busy": isinstance(e, kprof.errors.CuptiBusyError),
                "partial": e.partial_results is not None}
    print("RESULT " + json.dumps(seen), flush=True)
    """
)


def start(role: str, signal_dir: Path, wait: float, metrics=COUNTERS) -> subprocess.Popen:
    out = open(signal_dir / f"{role}.out", "w")  # noqa: SIM115 (the child's lifetime)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, role, str(signal_dir), str(wait), json.dumps(metrics)],
        stdout=out,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


def output(role: str, signal_dir: Path) -> str:
    return (signal_dir / f"{role}.out").read_text()


def wait_for(predicate, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def result(child: subprocess.Popen, role: str, signal_dir: Path) -> dict:
    child.wait(timeout=300)
    text = output(role, signal_dir)
    line = next((x for x in text.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, text[-3000:]
    return json.loads(line[len("RESULT ") :])


def hold(tmp_path: Path) -> subprocess.Popen:
    """Starts the process that takes GPU 0's counters and holds them inside a measured run."""
    child = start("holder", tmp_path, 0)
    wait_for(
        lambda: (tmp_path / "holding").exists() or child.poll() is not None,
        "the first process to take the counters",
    )
    assert (tmp_path / "holding").exists(), output("holder", tmp_path)[-3000:]
    return child


@pytest.fixture
def holder(tmp_path):
    """The first process, holding GPU 0's counters inside a measured run."""
    child = None
    try:
        child = hold(tmp_path)
        yield child
    finally:
        (tmp_path / "release").touch()
        if child is not None and child.poll() is None:
            child.wait(timeout=300)


def test_without_a_wait_the_second_process_gets_counters_busy_error(holder, tmp_path):
    second = result(start("second", tmp_path, 0), "second", tmp_path)
    assert second["type"] == "CountersBusyError", second
    assert second["is_cupti_busy"] and second["holder"] == "another process", second
    assert second["message"].startswith("another process profiles the counters of GPU 0 (NVIDIA"), (
        second
    )
    assert "pass wait_for_counters=<seconds> to wait for them" in second["message"], second
    # Durations alone are not exclusive: a third process times its kernels meanwhile.
    timed = result(
        start("durations", tmp_path, 0, ["gpu__time_duration.sum"]), "durations", tmp_path
    )
    assert timed["type"] == "ok", timed
    (tmp_path / "release").touch()
    first = result(holder, "holder", tmp_path)
    assert first["type"] == "ok" and first["rows"] > 0, first


def test_with_wait_for_counters_both_processes_finish(holder, tmp_path):
    second_child = start("second", tmp_path, 60)
    wait_for(
        lambda: (
            "waiting for GPU 0's counters (another process profiles them)"
            in output("second", tmp_path)
            or second_child.poll() is not None
        ),
        "the second process to wait for the counters",
    )
    assert second_child.poll() is None, output("second", tmp_path)[-3000:]
    time.sleep(1.0)  # it keeps waiting while they are held
    assert second_child.poll() is None, output("second", tmp_path)[-3000:]
    (tmp_path / "release").touch()
    first = result(holder, "holder", tmp_path)
    second = result(second_child, "second", tmp_path)
    assert first["type"] == "ok" and first["rows"] > 0, first
    assert second["type"] == "ok" and second["rows"] > 0, second
    text = output("second", tmp_path)
    assert text.count("waiting for GPU 0's counters") == 1, text[-3000:]


@pytest.mark.parametrize("wait", [0, 60])
def test_counters_taken_between_reading_them_and_the_first_pass(tmp_path, wait):
    """The racer reads the counters' availability while they are free, then the holder takes
    them before the racer's first pass: CUPTI answers busy at that Start (mid-sweep, before
    any measured run). Without a wait: CountersBusyError with partial_results; with one, the
    racer's Start is tried again once they are free, and measures."""
    racer = start("racer", tmp_path, wait)
    holder = None
    try:
        wait_for(
            lambda: (tmp_path / "configured").exists() or racer.poll() is not None,
            "the racer to enable its profiler",
        )
        holder = hold(tmp_path)
        if wait:
            wait_for(
                lambda: (
                    "waiting for GPU 0's counters" in output("racer", tmp_path)
                    or racer.poll() is not None
                ),
                "the racer to wait at its first pass",
            )
            assert racer.poll() is None, output("racer", tmp_path)[-3000:]
        else:
            raced = result(racer, "racer", tmp_path)
            assert raced["type"] == "CountersBusyError", raced
            assert "(cuptiRangeProfilerStart: CUPTI_ERROR_HARDWARE_BUSY)" in raced["message"]
            assert raced["partial"], raced  # raised in the sweep: partial results, as others
    finally:
        (tmp_path / "release").touch()
    first = result(holder, "holder", tmp_path)
    assert first["type"] == "ok" and first["rows"] > 0, first
    if wait:
        raced = result(racer, "racer", tmp_path)
        assert raced["type"] == "ok" and raced["rows"] > 0, raced
