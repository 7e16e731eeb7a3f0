"""The front end on a real H200 recording: torch fp32 matmul, n = 512..4096, 20 runs each,
with a derived TFLOP/s metric (tests/data/h200-torch-matmul-sweep-2026-11-30.json)."""

from pathlib import Path

import kprof
import pytest

RECORDING = (
    Path(__file__).resolve().parent.parent / "data" / "h200-torch-matmul-sweep-2026-11-30.json"
)


@pytest.fixture(scope="module")
def results():
    return kprof.load(RECORDING)


def test_session_says_where_it_was_measured(results):
    assert results.session["gpu"] == "NVIDIA H200"
    assert results.session["backend"] == "cupti-activity"
    assert results.session["runs"] == 20


def test_one_row_per_size_and_metric_in_nsight_order(results):
    df = results.to_dataframe()
    assert list(df.columns[:3]) == ["Annotation", "Metric", "n"]
    assert list(df["n"]) == [512, 1024, 2048, 4096] * 2
    assert set(df["NumRuns"]) == {20}


def test_derived_tflops_follow_from_the_raw_durations(results):
    raw = results.raw_dataframe()
    times = raw[raw["Metric"] == "gpu__time_duration.sum"].set_index(["n", "Run"])["Value"]
    flops = raw[raw["Metric"] == "tflops"].set_index(["n", "Run"])["Value"]
    for (n, run), t in times.items():
        assert flops[(n, run)] == pytest.approx(2 * n**3 / t / 1e3, rel=1e-12)


def test_intervals_contain_the_mean_and_the_big_matmul_is_slowest(results):
    df = results.to_dataframe()
    assert (df["CI95_Lower"] <= df["AvgValue"]).all()
    assert (df["AvgValue"] <= df["CI95_Upper"]).all()
    times = df[df["Metric"] == "gpu__time_duration.sum"].set_index("n")["AvgValue"]
    assert times.is_monotonic_increasing


def test_small_sizes_were_split_by_cublas_and_summed(results):
    kernels = results.records_dataframe()
    per_run = kernels.groupby(["n", "Run"])["KernelIndex"].max() + 1
    assert per_run.loc[512].max() == 2  # a GEMM and its split-k reduction
    df = results.to_dataframe()
    assert "|" in df.set_index(["Metric", "n"]).loc[("gpu__time_duration.sum", 512), "Kernel"]
