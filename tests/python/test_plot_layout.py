"""Figures of many metrics stay readable: the H200 recordings of set:analysis (25 metrics, no
parameters) and of set:flop (37 metrics) drawn as a grid of panels within a bounded figure,
whose titles, labels and ticks overlap nowhere, whose metric names are whole (wrapped, never
cut), and which says which metrics it could not hold. Profiles of a few metrics keep their
stacked rows."""

from __future__ import annotations

import itertools

import kprof
import pytest
from conftest import DATA
from kprof import report
from kprof._plot_layout import MAX_HEIGHT, MAX_WIDTH, MIN_PANEL, wrap

pytest.importorskip("matplotlib")
import matplotlib.image as mimage  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402

ANALYSIS = DATA / "h200-analysis-2026-12-03.json"
FLOP = DATA / "h200-flop-2026-12-05.json"
MATMUL = DATA / "h200-torch-matmul-sweep-2026-11-30.json"
RANKS = DATA / "h200-ranks-torchrun-2026-12-04.json"
DPI = 110  # visualization.save_figure's


def boxes(fig) -> list:
    """Each panel's extent in pixels with its title, labels and tick labels."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # lays the figure out as saving it does
    renderer = canvas.get_renderer()
    return [ax.get_tightbbox(renderer) for ax in fig.axes]


def assert_nothing_overlaps(fig) -> None:
    for (i, a), (j, b) in itertools.combinations(enumerate(boxes(fig)), 2):
        overlap_w = min(a.x1, b.x1) - max(a.x0, b.x0)
        overlap_h = min(a.y1, b.y1) - max(a.y0, b.y0)
        assert overlap_w <= 1 or overlap_h <= 1, (
            f"{fig.axes[i].get_title()!r} and {fig.axes[j].get_title()!r} overlap"
        )
    width, height = fig.bbox.width, fig.bbox.height
    for ax, box in zip(fig.axes, boxes(fig), strict=True):
        inside = box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and box.y1 <= height + 1
        assert inside, f"{ax.get_title()!r} reaches out of the figure"


def title_names(fig) -> list[str]:
    return [ax.get_title().replace("\n", "") for ax in fig.axes]


def test_25_metrics_are_a_grid_of_readable_panels(tmp_path):
    results = kprof.load(ANALYSIS)
    path = tmp_path / "analysis.png"
    fig = results.plot(path)
    assert title_names(fig) == list(results.metrics), "every metric, its whole name"
    w, h = fig.get_size_inches()
    assert w <= MAX_WIDTH and h <= MAX_HEIGHT
    img = mimage.imread(str(path))
    assert img.shape[1] <= MAX_WIDTH * DPI and img.shape[0] <= MAX_HEIGHT * DPI
    columns = sorted({round(ax.get_position().x0, 3) for ax in fig.axes})
    assert 3 <= len(columns) <= 6, "several metrics per row"
    for ax in fig.axes:
        pos = ax.get_position()
        assert pos.width * w >= MIN_PANEL[0] * 0.6 and pos.height * h >= MIN_PANEL[1] * 0.6
        assert max(len(line) for line in ax.get_title().split("\n")) <= 50
        # The title names the metric; the y label is its unit, not the name again.
        assert "__" not in ax.get_ylabel()
    assert_nothing_overlaps(fig)
    assert not fig.get_supxlabel(), "nothing left out, nothing to say"


def test_without_parameters_each_annotation_is_a_bar(tmp_path):
    """One x value: lines would join nothing and equal values would hide each other."""
    fig = kprof.load(ANALYSIS).plot(metric="launch__sm_count")
    ax = fig.axes[0]
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 5 and not any(isinstance(c, ErrorbarContainer) for c in ax.containers)
    assert [round(b.patches[0].get_height()) for b in bars] == [132] * 5
    lines = kprof.load(MATMUL).plot(metric="tflops").axes[0].containers
    assert all(isinstance(c, ErrorbarContainer) for c in lines), "sweeps stay lines"


def test_large_numbers_are_ticks_not_an_offset_over_the_title():
    fig = kprof.load(ANALYSIS).plot(metric="sm__ops_path_tensor_src_fp16.sum.per_second")
    ax = fig.axes[0]
    boxes(fig)
    assert ax.yaxis.get_offset_text().get_text() == ""
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text() not in ("", "0")]
    assert labels and all("e+14" in t for t in labels), labels


def test_37_metrics_draw_what_fits_and_say_what_does_not(tmp_path, capsys):
    results = kprof.load(FLOP)
    fig = results.plot()
    drawn = title_names(fig)
    assert 20 <= len(drawn) < 37 and drawn == list(results.metrics)[: len(drawn)]
    w, h = fig.get_size_inches()
    assert w <= MAX_WIDTH and h <= MAX_HEIGHT
    note = fig.get_supxlabel().replace("\n", " ")
    assert note.startswith(f"{len(drawn)} of 37 metrics drawn")
    assert list(results.metrics)[len(drawn)] in note and "metric=[...]" in note
    assert_nothing_overlaps(fig)
    # Asked for fewer, it draws them all.
    few = list(results.metrics)[-6:]
    assert title_names(results.plot(metric=few)) == few

    path = tmp_path / "flop.png"
    assert report.main(["report", str(FLOP), "--plot", str(path)]) == 0
    said = capsys.readouterr().out.splitlines()[-1]
    assert said.startswith(f"wrote {path} ({len(drawn)} of 37 metrics")
    for m in list(results.metrics)[len(drawn) :]:
        assert m in said
    assert "--metric" in said


def test_few_metrics_stay_stacked_at_the_asked_size():
    fig = kprof.load(MATMUL).plot()
    boxes(fig)
    assert [round(v, 2) for v in fig.get_size_inches()] == [6 + 2.8, 2 * 4 + 0.9]
    first, second = (ax.get_position() for ax in fig.axes)
    assert first.x0 == pytest.approx(second.x0) and first.y0 > second.y0
    assert_nothing_overlaps(fig)


def test_columns_of_panels_fit_the_width():
    """A merged job: a column of panels per rank, narrowed to the figure's width."""
    fig = kprof.load(RANKS).plot()
    assert len(fig.axes) == 4
    assert fig.get_size_inches()[0] <= MAX_WIDTH
    assert_nothing_overlaps(fig)


@pytest.mark.parametrize(
    "name",
    [
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
        "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained_elapsed.per_second",
        "n=1048576, dtype=fp32, op=scale",
        "x" * 90,
    ],
)
def test_names_wrap_at_their_dots_and_underscores_and_keep_every_character(name):
    text = wrap(name, 2.0, 10)  # 24 characters of 10 points in 2 inches
    lines = text.split("\n")
    assert len(lines) > 1 and max(len(line) for line in lines) <= 24
    assert text.replace("\n", "").replace(" ", "") == name.replace(" ", "")
    if "." in name:
        assert all(line[-1] in "._," for line in lines[:-1]), lines
    assert wrap(name, 30.0, 10) == name
