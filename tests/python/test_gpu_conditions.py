"""Measurement conditions through the Python API on the GPU: runs="auto" stops by its rule,
info collectors and the run context (NVML's clock and temperature), the thermal guard on a cool
GPU. Without a GPU: test_api_conditions.py."""

from __future__ import annotations

import kprof
import pytest

SILENT = kprof.VerbosityLevel.SILENT


@pytest.fixture(scope="module")
def demo():
    k = kprof._core.DemoKernels(1 << 24)
    k.scale(1 << 20)
    k.synchronize()
    return k


@pytest.mark.gpu
def test_gpu_runs_auto_stops_by_the_rule(demo):
    @kprof.analyze.kernel(configs=[1 << 20, 1 << 22], runs="auto", verbosity=SILENT)
    def bench(n):
        with kprof.annotate("scale"):
            demo.scale(n)

    df = bench().to_dataframe()
    assert set(df["StoppedBy"]) <= {"precision", "max_runs", "time_budget"}
    assert (df["RunsDone"] >= 5).all() and (df["RunsDone"] <= 100).all()
    ok = df["StoppedBy"] == "precision"
    half = (df["CI95_Upper"] - df["CI95_Lower"]) / 2 / df["AvgValue"]
    assert (half[ok] <= 0.01).all()


@pytest.mark.gpu
def test_gpu_collectors_and_run_context(demo, no_tool):
    @kprof.experimental.collect(scope="run")
    def run_counter(*config):
        run_counter.count += 1
        return run_counter.count

    run_counter.count = 0

    @kprof.analyze.kernel(
        configs=[1 << 20],
        runs=4,
        verbosity=SILENT,
        info_collectors=[run_counter, ("where", lambda a, n: f"{a}@{n}", "annotation")],
    )
    def bench(n):
        with kprof.annotate("scale"):
            demo.scale(n)

    res = bench()
    df = res.to_dataframe()
    assert df["run_counter_Avg"].iloc[0] == pytest.approx(2.5)
    assert df["where"].iloc[0] == f"scale@{1 << 20}"
    runs = res.runs_dataframe()
    assert len(runs) == 4
    # NVML on the H200: the measured clock and the temperature are known.
    assert runs["MeasuredClock"].notna().all()
    assert runs["Temperature"].notna().all()
    assert df["MeasuredClock"].iloc[0] > 0
    assert kprof.get_active_tool() is kprof.Tool.CUPTI


@pytest.mark.gpu
def test_gpu_thermal_guard_runs_without_pausing_a_cool_gpu(demo):
    @kprof.analyze.kernel(configs=[1 << 20], runs=3, verbosity=SILENT, thermal_mode="auto")
    def bench(n):
        with kprof.annotate("scale"):
            demo.scale(n)

    res = bench()
    assert res.session["thermal_mode"] == "auto"
    assert len(res.runs_dataframe()) == 3
