"""The kprof command reads what the Python API writes: a Parquet results file is read through
the Python package (pyarrow) by every command that reads results, and the command writes no
JSON under a Parquet name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kprof
import pytest

pytest.importorskip("pyarrow")

DATA = Path(__file__).resolve().parents[1] / "data"
DEMO = DATA / "h200-python-demo-2026-11-30.json"
RANKS = DATA / "h200-ranks-torchrun-2026-12-04.json"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kprof.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def parquet(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pq") / "demo.parquet"
    kprof.load(DEMO).save(path)
    return path


def test_report_reads_a_parquet_file_as_it_reads_its_json(parquet):
    from_json, from_parquet = run_cli("report", DEMO), run_cli("report", parquet)
    assert from_parquet.returncode == 0, from_parquet.stderr
    # The same table; only the file line differs.
    drop = lambda out: [line for line in out.splitlines() if not line.startswith("file ")]  # noqa: E731
    assert drop(from_parquet.stdout) == drop(from_json.stdout)


def test_compare_export_and_merge_read_parquet(parquet, tmp_path):
    done = run_cli("compare", DEMO, parquet)
    assert done.returncode == 0, done.stderr
    assert "0 slower, 0 faster, 0 higher, 0 lower, 16 same" in done.stdout  # the same runs
    done = run_cli("export", parquet)
    assert done.returncode == 0 and '"benchmarks"' in done.stdout, done.stderr
    parts = tmp_path / "rank0.parquet"
    kprof.merge([RANKS]).save(parts)
    done = run_cli("merge", parts, RANKS, "--out", tmp_path / "again.json")
    assert done.returncode == 2  # the same profile twice, read from either format
    assert "the same" in done.stderr, done.stderr


def test_a_parquet_file_that_cannot_be_read_is_one_line(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really")
    done = run_cli("report", bad)
    assert done.returncode == 2
    assert done.stderr.startswith(f"kprof report: cannot read FILE: {bad}: not a readable")
    assert len(done.stderr.splitlines()) <= 2 and "Traceback" not in done.stderr


def test_merge_writes_no_json_under_a_parquet_name(tmp_path):
    out = tmp_path / "merged.parquet"
    done = run_cli("merge", RANKS, DEMO, "--out", out)
    assert done.returncode == 2
    assert f"--out {out}: kprof merge writes JSON; give a name ending in .json" in done.stderr
    assert not out.exists()


def test_the_command_and_the_package_know_one_set_of_parquet_endings():
    from kprof import _core, _parquet

    assert _parquet.suffixes() == _core.PARQUET_ENDINGS == (".parquet", ".pq")
