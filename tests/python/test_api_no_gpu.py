"""Profiling on a machine without a GPU: one clear NoGpuError, no crash, nothing left
subscribed (a second call fails the same way), the benchmark never called."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import kprof
import pytest
from conftest import gpu_available
from kprof import errors

pytestmark = pytest.mark.skipif(gpu_available(), reason="this machine has a GPU")


def make_bench(verbosity=kprof.VerbosityLevel.SILENT, **options):
    calls = []

    @kprof.analyze.kernel(configs=[(1,), (2,)], runs=2, verbosity=verbosity, **options)
    def bench(n):
        calls.append(n)
        with kprof.annotate("region"):
            pass

    return bench, calls


def test_no_gpu_error_twice():
    bench, calls = make_bench()
    messages = []
    for _ in range(2):
        with pytest.raises(errors.NoGpuError) as info:
            bench()
        messages.append(str(info.value))
        assert info.value.partial_results is None
        assert isinstance(info.value, RuntimeError)
    assert messages[0] == messages[1]
    assert "GPU" in messages[0] or "driver" in messages[0]
    assert calls == []


def test_no_gpu_error_is_a_profiler_exception():
    bench, _ = make_bench()
    with pytest.raises(kprof.exceptions.ProfilerException):
        bench()


def test_annotations_still_work_after_a_failed_profile():
    bench, _ = make_bench()
    with pytest.raises(errors.NoGpuError):
        bench()
    with kprof.annotate("after"):
        with kprof.annotate("nested"):
            pass


def test_silent_prints_nothing(capfd):
    bench, _ = make_bench(verbosity=kprof.VerbosityLevel.SILENT)
    with pytest.raises(errors.NoGpuError):
        bench()
    out, err = capfd.readouterr()
    assert out == ""
    assert err == ""


def test_call_counter_does_not_advance_on_failure():
    bench, _ = make_bench()
    with pytest.raises(errors.NoGpuError):
        bench()
    assert bench._kprof_profiler.call_id == 0


def test_demo_kernels_need_a_gpu():
    with pytest.raises(errors.NoGpuError):
        kprof._core.DemoKernels(1024)


def test_no_crash_in_a_fresh_process():
    code = textwrap.dedent(
        """
        import kprof
        @kprof.analyze.kernel(verbosity=kprof.VerbosityLevel.SILENT)
        def bench():
            with kprof.annotate("r"):
                pass
        for _ in range(3):
            try:
                bench()
            except kprof.errors.NoGpuError as e:
                print("NoGpuError")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["NoGpuError"] * 3
    assert out.stderr == ""
