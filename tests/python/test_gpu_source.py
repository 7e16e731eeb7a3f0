"""set:source's warp samples against Nsight Compute's on the same torch kernels (H200): each
stall reason's share of a region's samples, kprof's sampling pass beside ncu's
``smsp__pcsamp_*`` metrics of the kernels in the same regions.

The two sample at periods of their own and count different totals; what must agree is the
mix: every reason that holds 5% or more of either tool's samples within 5 points of the other's
share (issue: where and why inside a kernel)."""

from __future__ import annotations

import pytest
from counter_ops import RUNS, make_ops
from gpu_reference import HERE, ncu_kernel_metrics, record

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
kprof = pytest.importorskip("kprof")
from kprof._native import core  # noqa: E402

COUNT = "smsp__pcsamp_sample_count"
NAMES = ["scale", "softmax", "matmul16", "total"]
SAMPLED = [m for m in core.metric_expand(["set:source"]) if m.startswith("smsp__pcsamp_")]
STALLS = [m for m in SAMPLED if m != COUNT]
SHOWN_PCT = 5.0
AGREE_PTS = 5.0


def shares(values: dict[str, float]) -> dict[str, float]:
    """Each reason's percentage of the samples."""
    total = values[COUNT]
    assert total > 0, values
    return {
        m.removeprefix("smsp__pcsamp_warps_issue_stalled_"): 100 * values[m] / total for m in STALLS
    }


@pytest.fixture(scope="module")
def ours_results():
    ops = make_ops(torch)

    @kprof.analyze.kernel(metrics=["set:source"], runs=RUNS, thermal_mode="off")
    def bench():
        for name in NAMES:
            with kprof.annotate(name):
                ops[name]()

    for op in ops.values():
        op()
    return bench()


@pytest.fixture(scope="module")
def ours(ours_results):
    df = ours_results.to_dataframe()
    means = {(r.Annotation, r.Metric): r.AvgValue for r in df.itertuples()}
    return {n: {m: means.get((n, m), 0.0) for m in SAMPLED} for n in NAMES}


@pytest.fixture(scope="module")
def theirs():
    """ncu's samples of each region's kernels, its RUNS runs summed (one kernel a run)."""
    kernels = ncu_kernel_metrics([str(HERE / "counter_ops.py"), *NAMES], NAMES, SAMPLED)
    assert len(kernels) == len(NAMES) * RUNS, [k["name"] for k in kernels]
    return {
        n: {m: sum(k[m] for k in kernels[i * RUNS : (i + 1) * RUNS]) for m in SAMPLED}
        for i, n in enumerate(NAMES)
    }


def test_each_regions_stall_mix_agrees_with_nsight_compute(ours, theirs):
    table, worst = {}, 0.0
    for name in NAMES:
        a, b = shares(ours[name]), shares(theirs[name])
        shown = sorted(
            (r for r in a if a[r] >= SHOWN_PCT or b[r] >= SHOWN_PCT), key=lambda r: -max(a[r], b[r])
        )
        table[name] = {
            "samples": {"kprof": ours[name][COUNT], "ncu": theirs[name][COUNT]},
            "share_pct": {r: {"kprof": round(a[r], 1), "ncu": round(b[r], 1)} for r in shown},
        }
        for r in shown:
            print(f"[ RESULT ] {name:9} {r:18} kprof {a[r]:5.1f}%  ncu {b[r]:5.1f}%")
            worst = max(worst, abs(a[r] - b[r]))
        top_a, top_b = max(a, key=a.get), max(b, key=b.get)
        table[name]["top"] = {"kprof": top_a, "ncu": top_b}
    record("h200_source_vs_ncu", table)
    print(f"[ RESULT ] largest difference of a shown reason's share: {worst:.1f} points")
    for name in NAMES:
        for r, pair in table[name]["share_pct"].items():
            assert abs(pair["kprof"] - pair["ncu"]) <= AGREE_PTS, (name, r, table[name])
        assert table[name]["top"]["kprof"] == table[name]["top"]["ncu"], (name, table[name])


def test_each_region_has_its_sampled_instructions(ours_results):
    frame = ours_results.source_dataframe()
    for name in NAMES:
        region = frame[frame["Annotation"] == name]
        assert len(region) > 0, name
        assert region["SharePct"].sum() == pytest.approx(100.0), name
        print(
            f"[ RESULT ] {name:9} {len(region)} instructions sampled; the hottest "
            f"{region['SharePct'].iloc[0]:.1f}% ({region['TopReason'].iloc[0]}, "
            f"{region['Sass'].iloc[0]})"
        )
    # torch's kernels carry no line information: no file, line 0.
    assert frame["File"].isna().all() and (frame["Line"] == 0).all()
