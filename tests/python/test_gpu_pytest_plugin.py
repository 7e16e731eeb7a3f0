"""The pytest plugin for real on the GPU: a suite profiles a torch kernel through the
kprof_benchmark fixture, saves it, compares the same run (no failure) and a run with twice the
work (a slowdown that fails the session)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
pytest.importorskip("torch")

SUITE = """
import os
import kprof
import torch

N = int(os.environ["KPROF_N"])
x = torch.rand(N, device="cuda")
y = torch.empty_like(x)


def test_scale(kprof_benchmark):
    @kprof.analyze.kernel(runs=10, thermal_mode="off", verbosity=kprof.VerbosityLevel.SILENT)
    def scale():
        with kprof.annotate("scale"):
            torch.mul(x, 2.0, out=y)

    results = kprof_benchmark(scale)
    assert results.to_dataframe()["NumRuns"].iloc[0] == 10
"""


def run_suite(tmp_path: Path, n: int, *options: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_suite.py").write_text(SUITE)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:benchmark"]
        + ["test_suite.py", *options],
        cwd=tmp_path,
        env={**os.environ, "KPROF_N": str(n)},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_plugin_saves_compares_and_fails_on_twice_the_work(tmp_path):
    saved = tmp_path / "saved"
    done = run_suite(tmp_path, 1 << 24, "--kprof-save", str(saved))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (saved / "test_suite.py_test_scale.json").is_file()
    same = run_suite(tmp_path, 1 << 24, "--kprof-compare", str(saved), "--kprof-fail-on", "20%")
    assert same.returncode == 0, same.stdout + same.stderr
    assert "no slowdown" in same.stdout
    more = run_suite(tmp_path, 1 << 25, "--kprof-compare", str(saved), "--kprof-fail-on", "20%")
    print(more.stdout[-1500:])
    assert more.returncode == 1, more.stdout + more.stderr
    assert "1 row(s) slower by 20% or more" in more.stdout
