"""The roofline chart (kprof.roofline), the report's Analysis section and
``kprof report FILE --roofline PATH``.

The chart and the section draw what the core computed: every value comes from a column of
``results.analysis()``, and neither recomputes a verdict or a FLOP count. So most tests hand
them a stand-in whose ``analysis()`` returns a DataFrame written here, with the columns the core
gives it: they check the drawing and the HTML against known numbers, on any machine, whatever
the core at hand. The tests at the end go through the core itself (made-up records of
set:analysis aggregated by it, and a recording from the H200 when there is one).
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path
from typing import Any

import kprof
import kprof._core
import pandas as pd
import pytest
from conftest import DATA, make_records
from kprof import ProfileResults, cli, report
from kprof._analysis_html import analysis_section
from kprof.errors import OptionError
from kprof.roofline import plot_roofline, region_label

pytest.importorskip("matplotlib")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HOSTILE = "<script>alert(1)</script>"
RECORDING = DATA / "h200-analysis-2026-12-03.json"
CORE_HAS_ANALYSIS = hasattr(kprof._core.Results, "analysis_columns")
needs_core_analysis = pytest.mark.skipif(
    not CORE_HAS_ANALYSIS, reason="this build of kprof._core has no analysis (analysis_columns)"
)

VERDICTS = (
    "High Throughput",
    "High Compute Throughput",
    "High Memory Throughput",
    "Balanced Throughput",
    "Latency Issue",
    "Small Grid",
)
PEAKS = {"FP32": 66.9, "FP64": 33.5, "FP16": 134.0, "Tensor": 989.0}


def analysis_row(annotation: str, n: int, **values: Any) -> dict[str, Any]:
    """One row as the core's analysis() gives it: a compute-bound fp32 kernel at 10 FLOP per
    DRAM byte (20 TFLOP/s from 2 TB/s), every precision's peak measured; ``values`` over it."""
    row: dict[str, Any] = {
        "Annotation": annotation,
        "Region": f"{annotation} (n={n})",
        "Kernel": f"{annotation}_kernel(float const*, float*)",
        "Bound": "compute",
        "Verdict": "High Compute Throughput",
        "SMThroughputPct": 71.3,
        "MemoryThroughputPct": 41.0,
        "DRAMThroughputPct": 41.0,
        "LimitingUnit": "FMA pipe",
        "LimitingUnitPct": 71.3,
        "AchievedOccupancyPct": 45.2,
        "TheoreticalOccupancyPct": 50.0,
        "OccupancyLimiter": "registers",
        "WavesPerSM": 12.4,
        "ArithmeticIntensity": 10.0,
        "Precision": "fp32",
        "AchievedTFLOPs": 20.0,
        "PeakTFLOPs": 66.9,
        "RooflineTFLOPs": 48.0,
        "FP32TFLOPs": 20.0,
        "FP64TFLOPs": 0.0,
        "FP16TFLOPs": 0.0,
        "TensorTFLOPs": 0.0,
        **{f"{p}PeakTFLOPs": v for p, v in PEAKS.items()},
        "DRAMTBs": 2.0,
        "DRAMPeakTBs": 4.8,
        "Advice": "Compute-bound at 71.3% of SM peak (FMA pipe busiest at 71.3%).",
        "n": n,
    }
    row.update(values)
    return row


TENSOR = {
    "ArithmeticIntensity": 200.0,
    "Precision": "tensor",
    "AchievedTFLOPs": 400.0,
    "FP32TFLOPs": 0.0,
    "TensorTFLOPs": 400.0,
    "PeakTFLOPs": 989.0,
    "Verdict": "High Throughput",
    "Advice": "Compute-bound near the limit, at 85% of SM peak.",
}
NO_FLOP = {
    "ArithmeticIntensity": math.nan,
    "Precision": None,
    "AchievedTFLOPs": 0.0,
    "FP32TFLOPs": 0.0,
    "PeakTFLOPs": math.nan,
    "RooflineTFLOPs": math.nan,
    "Bound": "memory",
    "Verdict": "High Memory Throughput",
    "Advice": "Memory-bound at 86% of peak.",
}


class Analysed:
    """What the roofline and the report read of a ProfileResults: ``analysis()``,
    ``parameters`` and ``session``, here from a DataFrame written by hand."""

    def __init__(self, rows: list[dict[str, Any]], session: dict[str, Any] | None = None):
        self.frame = pd.DataFrame(rows)
        self.parameters = ["n"]
        self.session = session or {"gpu": "NVIDIA H200", "backend": "cupti-range"}

    def analysis(self) -> pd.DataFrame:
        return self.frame.copy()


class Unanalysed(Analysed):
    """Results without set:analysis: analysis() raises as the core does."""

    def analysis(self) -> pd.DataFrame:
        raise OptionError(
            "metrics",
            "['gpu__time_duration.sum']",
            "set:analysis",
            message="analysis needs the metrics of set:analysis; missing: sm__throughput...",
        )


@pytest.fixture
def mixed() -> Analysed:
    """fp32 and tensor regions, one region without FLOP, one hostile annotation."""
    return Analysed(
        [
            analysis_row("matmul", 4096),
            analysis_row("matmul", 8192, **TENSOR),
            analysis_row("copy", 4096, **NO_FLOP),
            analysis_row(HOSTILE, 4096, AchievedTFLOPs=5.0, ArithmeticIntensity=2.5),
        ]
    )


def roof_lines(ax: Any) -> dict[str, Any]:
    return {line.get_label(): line for line in ax.get_lines()}


def point_coordinates(ax: Any) -> list[tuple[float, float]]:
    return sorted((float(x), float(y)) for c in ax.collections for x, y in c.get_offsets())


# --- the chart ------------------------------------------------------------------------------


def test_log_axes_a_roof_per_precision_in_use_and_the_dram_slope(mixed):
    ax = plot_roofline(mixed).axes[0]
    assert ax.get_xscale() == "log"
    assert ax.get_yscale() == "log"
    # fp64 and fp16 have peaks but no FLOP in any row: no roof for them.
    assert sorted(roof_lines(ax)) == [
        "DRAM 4.8 TB/s",
        "fp32 peak 66.9 TFLOP/s",
        "tensor peak 989 TFLOP/s",
    ]


def test_each_roof_is_min_of_its_peak_and_the_dram_slope(mixed):
    lines = roof_lines(plot_roofline(mixed).axes[0])
    for label, peak in (("fp32 peak 66.9 TFLOP/s", 66.9), ("tensor peak 989 TFLOP/s", 989.0)):
        xs, ys = lines[label].get_data()
        assert max(ys) == pytest.approx(peak)
        assert any(x == pytest.approx(peak / 4.8) for x in xs)  # the ridge is a corner
        for x, y in zip(xs, ys, strict=True):
            assert y == pytest.approx(min(peak, x * 4.8))
    xs, ys = lines["DRAM 4.8 TB/s"].get_data()
    assert [y / x for x, y in zip(xs, ys, strict=True)] == pytest.approx([4.8, 4.8])
    assert max(xs) == pytest.approx(989.0 / 4.8)  # it ends under the highest roof


def test_a_labelled_point_per_region_with_an_intensity(mixed):
    fig = plot_roofline(mixed)
    ax = fig.axes[0]
    assert point_coordinates(ax) == [(2.5, 5.0), (10.0, 20.0), (200.0, 400.0)]
    labels = [t.get_text() for t in ax.texts]
    assert "matmul (n=4096)" in labels
    assert "matmul (n=8192)" in labels
    assert f"{HOSTILE} (n=4096)" in labels
    # The region without FLOP has no point; a note names it.
    notes = [t for t in labels if t.startswith("left out")]
    assert notes == ["left out, no FLOP or no DRAM bytes measured: copy (n=4096)"]


def test_the_title_and_the_context_line(mixed):
    fig = plot_roofline(mixed)
    assert fig.get_suptitle() == "Roofline\nNVIDIA H200 · cupti-range"
    assert plot_roofline(mixed, title="GEMM").get_suptitle().startswith("GEMM\n")


def test_saving_by_extension_writes_a_png(mixed, tmp_path):
    path = tmp_path / "new folder" / "roofline.png"
    plot_roofline(mixed, path)
    assert path.read_bytes()[:8] == PNG_MAGIC
    svg = tmp_path / "roofline.svg"
    plot_roofline(mixed, svg)
    assert b"<svg" in svg.read_bytes()[:1000]


def test_no_region_with_an_intensity_is_an_option_error():
    with pytest.raises(OptionError, match="no region can be drawn on the roofline") as info:
        plot_roofline(Analysed([analysis_row("copy", 4096, **NO_FLOP)]))
    assert info.value.option == "results"
    assert "ArithmeticIntensity is NaN" in str(info.value)


def test_results_without_the_set_raise_the_cores_error():
    with pytest.raises(OptionError) as info:
        plot_roofline(Unanalysed([]))
    assert info.value.option == "metrics"


def test_region_labels_are_the_cores():
    row = analysis_row("matmul", 4096, KernelIndex=1, Region="matmul (n=4096) kernel 1")
    assert region_label(row) == "matmul (n=4096) kernel 1"


# --- the report's section -------------------------------------------------------------------


def test_the_section_shows_verdicts_advice_and_numbers(mixed):
    section = analysis_section(mixed)
    assert section.startswith('<section id="analysis"><h2>What limits each region</h2>')
    for text in ("High Compute Throughput", "High Throughput", "High Memory Throughput"):
        assert f'<td class="verdict">{text}</td>' in section
    assert "Compute-bound at 71.3% of SM peak (FMA pipe busiest at 71.3%)." in section
    assert "Memory-bound at 86% of peak." in section
    assert "<th>n</th>" in section and "<td>8192</td>" in section
    assert '<td class="num">45.2</td><td class="num">50</td>' in section  # achieved, theoretical
    assert '<td class="num">20 fp32</td>' in section
    assert "<td>FMA pipe 71.3%</td>" in section
    assert "<img" not in section  # no plots asked


def test_each_region_is_its_verdict_first_then_a_row_of_advice(mixed):
    """The verdict right after the region's name and parameters; the advice under the numbers,
    across the whole table, where it is read whole instead of squeezed into a last column."""
    section = analysis_section(mixed)
    heads = re.findall(r"<th>([^<]*)</th>", section)
    assert heads[:4] == ["Annotation", "n", "Verdict", "Bound"] and "Advice" not in heads
    regions = re.findall(r'<tbody class="region">(.*?)</tbody>', section)
    assert len(regions) == len(mixed.analysis())
    for region, advice in zip(regions, mixed.analysis()["Advice"], strict=True):
        numbers, said = re.findall(r"<tr[^>]*>(.*?)</tr>", region)
        assert re.findall(r"<td[^>]*>", numbers)[2] == '<td class="verdict">'
        assert f'<td colspan="{len(heads)}"><div><b>Advice:</b> {html.escape(advice)}</div>' in said


def test_the_section_escapes_annotations(mixed):
    section = analysis_section(mixed)
    assert HOSTILE not in section
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section


def test_the_section_embeds_the_roofline_with_plots(mixed):
    section = analysis_section(mixed, png=report._png_base64)
    assert '<img alt="Roofline:' in section
    assert "data:image/png;base64,iVBORw0KGgo" in section  # base64 of the PNG magic


def test_no_section_without_the_analysis():
    assert analysis_section(Unanalysed([])) == ""


def test_the_console_command_hands_roofline_to_python():
    assert cli._is_python_report(["kprof", "report", "r.json", "--roofline", "x.png"], kprof._core)
    assert cli._is_python_report(["kprof", "report", "r.json", "--roofline=x.png"], kprof._core)
    assert not cli._is_python_report(["kprof", "report", "r.json", "--explain"], kprof._core)


# --- through the core -----------------------------------------------------------------------

TENSOR_OPS = "sm__ops_path_tensor_src_fp16.sum.per_second"
TENSOR_PEAK = "sm__ops_path_tensor_src_fp16.sum.peak_sustained_elapsed.per_second"
DRAM = "dram__bytes.sum.per_second"
DRAM_PEAK = "dram__bytes.sum.peak_sustained_elapsed.per_second"
SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"


def made_up_region(tensor_per_second: float) -> dict[str, float]:
    """One kernel's made-up values of set:analysis: SM throughput at 70%, fp16 tensor work
    against a 990 TFLOP/s peak, 2 TB/s of DRAM against 4.8."""
    out = {m: 1.0 for m in kprof.metrics.expand(["set:analysis"])}
    for m in out:
        if m.endswith(".sum.per_second") and not m.startswith("dram"):
            out[m] = 0.0  # no tensor work from other sources
    out.update(
        {
            TENSOR_OPS: tensor_per_second,
            TENSOR_PEAK: 9.9e14,
            DRAM: 2e12,
            DRAM_PEAK: 4.8e12,
            SM: 70.0,
        }
    )
    return out


@pytest.fixture
def made_up(synthetic):
    """Two configs of one annotation through the core: 200 TFLOP/s of tensor work at 100 FLOP
    per byte, and none at all."""
    rows = [
        (c, run, "k", "kernel", 0, m, v, "")
        for c, ops in enumerate([2e14, 0.0])
        for run in range(3)
        for m, v in made_up_region(ops).items()
    ]
    return ProfileResults(synthetic(["n"], [[4096], [8192]], make_records(rows)))


@needs_core_analysis
def test_plot_roofline_draws_the_cores_columns(made_up):
    ax = made_up.plot_roofline().axes[0]
    [(x, y)] = point_coordinates(ax)
    assert (x, y) == (pytest.approx(100.0), pytest.approx(200.0))
    assert sorted(roof_lines(ax)) == ["DRAM 4.8 TB/s", "tensor peak 990 TFLOP/s"]
    assert [t.get_text() for t in ax.texts][0] == "k (n=4096)"


@needs_core_analysis
def test_the_page_has_the_section_only_for_analysed_results(made_up, two_by_two):
    page = report.render_html(made_up, plots=False)
    assert '<section id="analysis">' in page
    assert '<td class="verdict">High Compute Throughput</td>' in page
    # What limits each region comes before where and how it was measured, and the results.
    order = [page.index(f'<section id="{s}">') for s in ("analysis", "context", "results")]
    assert order == sorted(order)
    assert '<section id="analysis">' not in report.render_html(
        ProfileResults(two_by_two), plots=False
    )


@needs_core_analysis
def test_report_roofline_writes_the_chart(made_up, tmp_path, capsys):
    saved = made_up.save(tmp_path / "r.json")
    out = tmp_path / "roofline.png"
    assert report.main([saved, "--roofline", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG_MAGIC
    assert capsys.readouterr().out.endswith(f"wrote {out}\n")


@needs_core_analysis
def test_report_roofline_without_the_set_exits_2_before_printing(two_by_two, tmp_path, capsys):
    saved = ProfileResults(two_by_two).save(tmp_path / "r.json")
    out = tmp_path / "roofline.png"
    assert report.main([saved, "--roofline", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("kprof report: --roofline: ")
    assert "set:analysis" in captured.err
    assert not out.exists()


@needs_core_analysis
def test_the_section_shows_the_cells_of_explain_for_the_h200_recording():
    """The HTML table and `kprof report --explain` show each region alike: the same headings
    after the verdict and, region by region, the same cells."""
    if not RECORDING.exists():
        pytest.skip(f"no recording {RECORDING.name} (made on the H200)")
    results = kprof.load(RECORDING)
    section = analysis_section(results)
    text = results._core.analysis_text()
    header, *lines = text.split("\n\n")[0].splitlines()
    heads = re.findall(r"<th>([^<]*)</th>", section)
    assert heads[heads.index("Verdict") + 1 :] == re.split(r"\s{2,}", header.strip())[1:]
    numbers = re.findall(r'<tr class="numbers">(.*?)</tr>', section)
    assert len(numbers) == len(lines) == 5
    for html_row, line in zip(numbers, lines, strict=True):
        cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", html_row)]
        shown = cells[cells.index(next(c for c in cells if c in VERDICTS)) + 1 :]
        assert shown == re.split(r"\s{2,}", line.strip())[1:]


@needs_core_analysis
def test_report_roofline_of_the_h200_recording(tmp_path: Path, capsys):
    if not RECORDING.exists():
        pytest.skip(f"no recording {RECORDING.name} (made on the H200)")
    out = tmp_path / "roofline.png"
    assert report.main([str(RECORDING), "--roofline", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG_MAGIC
    assert f"wrote {out}" in capsys.readouterr().out


# set:analysis and set:flop on the H200, one multiply an element over 2^26 elements: a region's
# FLOP of each precision counted.
FLOP_RECORDINGS = {
    # By Nsight Compute (Tool.NCU, ncu 2025.3.1): an fp32 and an fp64 scale.
    "h200-ncu-flop-2026-12-04.json": (
        "nsight-compute",
        {"scale32": ("FP32", 2**26), "scale64": ("FP64", 2**26)},
    ),
    # By kprof in the process (CUPTI 13.5.25, nvdisasm): the fp16 scale too, whose multiply runs
    # in fp32 with one half-add-class instruction an element (2^27 by Nsight Compute's formula).
    "h200-flop-2026-12-05.json": (
        "cupti-range-profiler",
        {"scale32": ("FP32", 2**26), "scale64": ("FP64", 2**26), "scale16": ("FP16", 2**27)},
    ),
}


@needs_core_analysis
@pytest.mark.parametrize("name", FLOP_RECORDINGS)
def test_the_h200_recordings_of_flop_counts_give_a_roof_per_precision(name):
    backend, scales = FLOP_RECORDINGS[name]
    results = kprof.load(DATA / name)
    assert results.session["backend"] == backend
    frame = results.analysis().set_index("Annotation")
    durations = results.to_dataframe().set_index("Annotation")
    durations = durations[durations["Metric"] == "gpu__time_duration.sum"]["AvgValue"]
    for region, (precision, flop) in scales.items():
        done = frame.loc[region, f"{precision}TFLOPs"] * 1e12 * durations[region] * 1e-9
        assert done == pytest.approx(flop, rel=1e-3), region
    assert frame.loc["scale32", "Precision"] == "fp32"
    assert frame.loc["scale64", "Precision"] == "fp64"
    assert frame.loc["scale32", "FP16TFLOPs"] == 0  # measured: no half-precision work
    ax = plot_roofline(results).axes[0]
    roofs = sorted(label for label in roof_lines(ax) if "peak" in label)
    assert [r.split()[0] for r in roofs] == sorted({p.lower() for p, _ in scales.values()})


def test_the_cores_cells_take_missing_values_of_any_kind():
    """A row of a frame a user built may hold pandas' NA or None where kprof's holds NaN."""
    cells = kprof._core.analysis_cells(
        {
            "bound": "memory",
            "sm_throughput_pct": pd.NA,
            "memory_throughput_pct": None,
            "dram_throughput_pct": float("nan"),
            "waves_per_sm": 2.0,
        }
    )
    headings = [h for h, _ in kprof._core.analysis_headings()]
    assert dict(zip(headings, cells, strict=True))["SM %"] == "-"
    assert cells[:4] == ["memory", "-", "-", "-"]
    assert dict(zip(headings, cells, strict=True))["Waves/SM"] == "2"
