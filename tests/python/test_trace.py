"""ProfileResults.to_trace on the H200 demo recording: the Trace Event Format Perfetto reads."""

from __future__ import annotations

import json
from pathlib import Path

import kprof
import pytest

DATA = Path(__file__).resolve().parents[1] / "data"


def test_to_trace_writes_the_kernels_at_their_gpu_times(tmp_path):
    results = kprof.load(DATA / "h200-demo-timed-2026-12-03.json")
    records = results.records_dataframe()
    assert records["GpuStart"].min() > 0 and (records["GpuEnd"] > records["GpuStart"]).all()
    path = results.to_trace(tmp_path / "trace.json")
    doc = json.loads(Path(path).read_text())
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    kernels = [e for e in slices if e["cat"] == "kernel"]
    assert len(kernels) == len(records)
    for e in slices:
        assert {"name", "ph", "ts", "dur", "pid", "tid", "args"} <= set(e)
    first = min(records["GpuStart"])
    for e, (_, row) in zip(
        sorted(kernels, key=lambda e: e["ts"]),
        records.sort_values("GpuStart").iterrows(),
        strict=True,
    ):
        assert e["ts"] == pytest.approx((row["GpuStart"] - first) / 1e3)
    assert json.loads(results.to_trace())["otherData"]["gpu"] == "NVIDIA H200"


def test_results_without_timestamps_say_so():
    results = kprof.load(DATA / "h200-python-counters-2026-11-30.json")
    with pytest.raises(kprof.errors.FormatError, match="no GPU timestamps"):
        results.to_trace()
