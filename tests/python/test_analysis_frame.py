"""results.analysis() and explain() through the core: made-up records of set:analysis
aggregated by the core, the verdicts and columns the DataFrame shows, and the error for results
that lack the set."""

from __future__ import annotations

import math

import kprof
import pytest
from conftest import make_records
from kprof import ProfileResults

SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEM = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
WAVES = "launch__waves_per_multiprocessor"


def region(**values: float) -> dict[str, float]:
    """One kernel's values of set:analysis: plain ones, `values` over them."""
    out = {m: 1.0 for m in kprof.metrics.expand(["set:analysis"])}
    out.update({WAVES: 10.0, "sm__maximum_warps_per_active_cycle_pct": 100.0})
    out.update({"sm__warps_active.avg.pct_of_peak_sustained_active": 95.0})
    out.update(values)
    return out


@pytest.fixture
def analysed(synthetic):
    """Two configs of one annotation: a small grid, and a kernel memory-bound at 86%."""
    configs = [region(**{SM: 5.0, MEM: 3.0, WAVES: 0.4}), region(**{SM: 30.0, MEM: 86.0})]
    rows = [
        (c, run, "k", "kernel", 0, m, v, "")
        for c, values in enumerate(configs)
        for run in range(3)
        for m, v in values.items()
    ]
    return ProfileResults(synthetic(["n"], [[4096], [2**26]], make_records(rows)))


def test_a_row_per_config_with_the_verdict_and_the_parameters(analysed):
    a = analysed.analysis()
    assert list(a["n"]) == [4096, 2**26]
    assert list(a["Annotation"]) == ["k", "k"]
    assert list(a["Verdict"]) == ["Small Grid", "High Throughput"]
    assert list(a["Bound"]) == ["latency", "memory"]
    assert a.loc[1, "MemoryThroughputPct"] == pytest.approx(86)
    assert a.loc[0, "WavesPerSM"] == pytest.approx(0.4)
    assert "KernelIndex" not in a.columns  # per kernel only
    assert a["Advice"][1].startswith("Memory-bound near the limit, at 86% of peak")
    assert not math.isnan(a.loc[0, "AchievedTFLOPs"])


def test_explain_is_the_core_text(analysed):
    text = analysed.explain()
    assert "k (n=4096): Small Grid" in text
    assert "k (n=67108864): High Throughput" in text


def test_results_without_the_set_say_what_they_lack(synthetic):
    rows = [(0, r, "k", "kernel", 0, "gpu__time_duration.sum", 1000.0, "ns") for r in range(3)]
    results = ProfileResults(synthetic(["n"], [[1]], make_records(rows)))
    with pytest.raises(kprof.errors.OptionError, match="set:analysis") as info:
        results.analysis()
    assert info.value.option == "metrics"
    assert SM in str(info.value)
