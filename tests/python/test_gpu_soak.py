"""kprof under load on the GPU (bench/soak.py, run as a child): flat memory over 100,000
annotated runs, a sweep of 10,000 configs, and 1,000 profiles in a row without a leak of files,
threads or GPU memory. The times it prints are the benchmark's, not asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gpu_reference import record

pytestmark = pytest.mark.gpu

SOAK = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    out = tmp_path_factory.mktemp("soak") / "soak.json"
    child = subprocess.run(
        [sys.executable, str(SOAK), "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    print(child.stdout)
    figures = json.loads(out.read_text())
    record("soak", figures)
    return figures


def test_resident_size_stays_flat_over_100000_annotated_runs(figures):
    runs = figures["runs"]
    assert runs["runs"] == 100_000
    assert runs["rss_growth"] < 0.01, runs


def test_a_sweep_of_10000_configs_gives_a_row_each(figures):
    assert figures["configs"]["rows"] == figures["configs"]["configs"] == 10_000


@pytest.mark.parametrize("key", ["profiles", "counter_profiles"])
def test_profiles_in_a_row_leak_no_file_thread_or_gpu_memory(figures, key):
    p = figures[key]
    assert p["open_files_at_end"] == p["open_files_after_first_tenth"], p
    assert p["threads_at_end"] == p["threads_after_first_tenth"], p
    assert abs(p["gpu_free_bytes_at_end"] - p["gpu_free_bytes_after_first_tenth"]) <= 2 << 20, p
    assert p["rss_growth"] < 0.01, p
