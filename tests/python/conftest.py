"""Shared fixtures of the Python tests.

Tests marked ``gpu`` (``pytest -m gpu``) need a CUDA GPU and are skipped without one; every
other test runs on a machine with no GPU and no driver. Synthetic results are built by the
C++ core's own aggregation (``kprof._core._aggregate``) from made-up records: they test the
front end's plumbing, and say so in their session (backend ``synthetic-test``); they are never
presented as measurements.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent.parent / "data"


@functools.cache
def gpu_available() -> bool:
    try:
        from kprof import _core
    except ImportError:
        return False
    return bool(_core.query_system()["devices"])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


SYNTHETIC_SESSION = {
    "gpu": "synthetic (no GPU)",
    "device": -1,
    "host": "test-host",
    "compute_clock_khz": 1980000,
    "memory_clock_khz": 2619000,
    "backend": "synthetic-test",
    "replay_mode": "kernel",
    "cache_control": "all",
    "clock_control": "none",
    "passes": 1,
    "metrics": ["gpu__time_duration.sum"],
}

RECORD_COLUMNS = (
    "config",
    "run",
    "annotation",
    "kernel",
    "kernel_index",
    "metric",
    "value",
    "unit",
)


def make_records(rows: Sequence[tuple[Any, ...]]) -> dict[str, list[Any]]:
    """Columns from (config, run, annotation, kernel, kernel_index, metric, value, unit)."""
    cols: dict[str, list[Any]] = {c: [] for c in RECORD_COLUMNS}
    for row in rows:
        for name, value in zip(RECORD_COLUMNS, row, strict=True):
            cols[name].append(value)
    return cols


def duration_records(values: dict[tuple[int, str], Sequence[float]]) -> dict[str, list[Any]]:
    """One kernel per (config, annotation) and run, with the given durations (ns)."""
    rows = []
    for (config, annotation), runs in values.items():
        for run, v in enumerate(runs):
            rows.append(
                (
                    config,
                    run,
                    annotation,
                    f"{annotation}_kernel",
                    0,
                    "gpu__time_duration.sum",
                    v,
                    "ns",
                )
            )
    return make_records(rows)


@pytest.fixture
def synthetic() -> Callable[..., Any]:
    """synthetic(names, points, records, **options) -> _core.Results, aggregated by the core."""
    from kprof import _core

    def build(
        names: Sequence[str],
        points: Sequence[Sequence[Any]],
        records: dict[str, list[Any]],
        runs: int = 3,
        **options: Any,
    ) -> Any:
        o = _core.Options()
        o.runs = runs
        derive = options.pop("derive", None)
        if derive is not None:
            o.set_derive(*derive)
        for k, v in options.items():
            setattr(o, k, v)
        session = dict(SYNTHETIC_SESSION, runs=runs)
        return _core._aggregate(session, list(names), [list(p) for p in points], records, o)

    return build


@pytest.fixture
def two_by_two(synthetic: Callable[..., Any]) -> Any:
    """Two annotations ("base", "fast") x two configs (n=1024/2048, dtype='fp16'), 3 runs."""
    records = duration_records(
        {
            (0, "base"): [100.0, 110.0, 105.0],
            (0, "fast"): [50.0, 55.0, 52.5],
            (1, "base"): [200.0, 190.0, 210.0],
            (1, "fast"): [100.0, 95.0, 105.0],
        }
    )
    return synthetic(["n", "dtype"], [[1024, "fp16"], [2048, "fp16"]], records)


def isclose(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.fixture
def no_tool() -> Any:
    """No kprof.Tool active before and after the test."""
    import kprof

    kprof.deactivate()
    yield
    kprof.deactivate()


# --- set:source: made-up warp samples (test_stalls.py, test_compare_source.py) ---------------

COUNT = "smsp__pcsamp_sample_count"
STALL = "smsp__pcsamp_warps_issue_stalled_"


def sampled(values: dict[str, float], config: int = 0, annotation: str = "k") -> list[tuple]:
    """One kernel's records of a sampled call: a sample count and each reason's samples."""
    rows = [(config, 0, annotation, "kern", 0, COUNT, sum(values.values()), "sample")]
    rows += [(config, 0, annotation, "kern", 0, STALL + r, v, "sample") for r, v in values.items()]
    return rows


@pytest.fixture
def two_regions(synthetic):
    rows = sampled({"long_scoreboard": 90, "selected": 8, "wait": 2})
    rows += sampled({"barrier": 30, "wait": 10}, annotation="sync")
    rows += [(0, 0, "k", "kern", 0, STALL + "long_scoreboard_not_issued", 85, "sample")]
    rows += sampled({"long_scoreboard": 50, "selected": 50}, config=1)
    rows += sampled({"barrier": 40}, config=1, annotation="sync")
    from kprof import ProfileResults  # here: importing conftest loads no extension

    return ProfileResults(synthetic(["n"], [[1024], [2048]], make_records(rows)))


def with_source(results: Any, lines: list[tuple], tmp_path: Path) -> Any:
    """`results` saved with a source table of `lines` (config, annotation, kernel, pc_offset,
    sass, file, line, reason, samples), as a sampling pass writes it, and loaded back."""
    import json

    import kprof

    doc = json.loads(results.to_json())
    fields = ["config", "annotation", "kernel", "pc_offset", "sass", "file", "line", "reason"]
    doc["source"] = {f: [x[i] for x in lines] for i, f in enumerate([*fields, "samples"])}
    doc["source"]["cubin"] = [7] * len(lines)  # one module's code
    path = tmp_path / "sampled.json"
    path.write_text(json.dumps(doc))
    return kprof.load(path)
