"""Google Benchmark's own comparison tool (tools/compare.py) on kprof's exports: an H200
recording against the same recording made 20% slower. compare.py is not on PyPI (its wheel
carries the bindings only); Debian ships it in libbenchmark-tools (/usr/share/benchmark), and
KPROF_GBENCH_COMPARE may name another copy. Without it, or without scipy, the test skips."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import kprof
import planted
import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDING = DATA / "h200-python-demo-2026-11-30.json"
COMPARE = Path(os.environ.get("KPROF_GBENCH_COMPARE", "/usr/share/benchmark/compare.py"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")

pytestmark = pytest.mark.skipif(not COMPARE.is_file(), reason=f"no compare.py at {COMPARE}")


def export(results_path: Path, out: Path) -> Path:
    out.write_text(kprof.load(results_path).to_google_benchmark_json(time_unit="us"))
    return out


def test_compare_py_reads_two_exports_and_finds_the_planted_slowdown(tmp_path):
    pytest.importorskip("scipy")  # compare.py's U test
    base = export(RECORDING, tmp_path / "base.json")
    slower = export(planted.slower_copy(RECORDING, tmp_path, 1.2), tmp_path / "new.json")
    done = subprocess.run(
        [sys.executable, str(COMPARE), "-a", "benchmarks", str(base), str(slower)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=COMPARE.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = ANSI.sub("", done.stdout)
    means = [line.split() for line in out.splitlines() if "_mean " in line]
    annotations = kprof.load(RECORDING).to_dataframe()["Annotation"].unique()
    assert len(means) >= len(annotations), out
    for fields in means:
        # Benchmark name, Time change, CPU change: +0.2000 is 20% slower.
        assert float(fields[1]) == pytest.approx(0.2, abs=1e-3), fields
    assert "OVERALL_GEOMEAN" in out
    assert "_pvalue" in out, out  # the runs are repetitions: the U test ran
