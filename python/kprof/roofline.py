# SPDX-License-Identifier: Apache-2.0
"""The roofline chart of results that measured ``set:analysis``:
:meth:`kprof.ProfileResults.plot_roofline` and ``kprof report FILE --roofline PATH``.

Everything drawn is a column of :meth:`kprof.ProfileResults.analysis`, which the C++ core
computes: the FLOP of each precision, its peak at the measured clock, the DRAM bytes and their
peak, the arithmetic intensity. This module only places them on log-log axes, so the chart and
``results.explain()`` can never disagree.

Like :mod:`kprof.visualization`, it draws on ``matplotlib.figure.Figure`` without pyplot (no
display needed, nothing left in pyplot's registry) and imports matplotlib only when called.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from kprof._native import core as _core
from kprof._plot_options import picture_format, require_matplotlib, series_style
from kprof.errors import OptionError
from kprof.visualization import _show_in_notebooks, context_line, save_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_roofline", "draw_roofline", "region_label"]

# The precisions are the core's: each <P>TFLOPs column with a <P>PeakTFLOPs beside it in
# analysis() (Tensor, and FP32, FP64 and FP16 where set:flop was measured).
_PEAK_SUFFIX = "PeakTFLOPs"
# Dark roof colours and dashes, apart from the palette the points use.
_ROOF_STYLE = {
    "fp32": ("#222222", "-"),
    "fp64": ("#555555", "-."),
    "fp16": ("#6A3D9A", "--"),
    "tensor": ("#B8860B", ":"),
}
_DRAM_COLOR = "#888888"
# How far the axes reach past the outermost point or ridge, as a factor on the log scale, and
# the least span of an axis (two decades), so that it has major ticks to label.
_MARGIN = 4.0
_MIN_SPAN = 100.0
# Regions named in the note about those left out; the rest are counted.
_NOTE_NAMES = 3


def region_label(row: Mapping[str, Any]) -> str:
    """A region as ``results.explain()`` names it: the core's ``Region`` column,
    ``matmul (n=4096)``, per kernel ``matmul (n=4096) kernel 1``."""
    return str(row["Region"])


def _drawable(frame: pd.DataFrame) -> pd.Series:
    """Rows with a place on log-log axes: an intensity (FLOP and DRAM bytes both measured)
    and FLOP per second above zero."""
    intensity = frame["ArithmeticIntensity"].astype(float)
    achieved = frame["AchievedTFLOPs"].astype(float)
    return intensity.map(math.isfinite) & (intensity > 0) & (achieved > 0)


def _roofs(frame: pd.DataFrame) -> list[tuple[str, float]]:
    """(precision, peak TFLOP/s) of each precision some row did FLOP in; a precision without
    a measured peak has no roof to draw."""
    roofs = []
    prefixes = [c[: -len(_PEAK_SUFFIX)] for c in frame.columns if c.endswith(_PEAK_SUFFIX)]
    for prefix in (p for p in prefixes if p and f"{p}TFLOPs" in frame):
        name = prefix.lower()
        if not (frame[f"{prefix}TFLOPs"].astype(float) > 0).any():
            continue
        peak = float(frame[f"{prefix}PeakTFLOPs"].astype(float).max())
        if math.isfinite(peak) and peak > 0:
            roofs.append((name, peak))
    return roofs


def _dram_peak(frame: pd.DataFrame) -> float:
    """The DRAM peak in TB/s; NaN when no row measured it."""
    peak = float(frame["DRAMPeakTBs"].astype(float).max())
    return peak if peak > 0 else math.nan


def _span(values: Sequence[float]) -> tuple[float, float]:
    """A log axis around ``values`` with a margin either side, two decades at least."""
    lo, hi = min(values) / _MARGIN, max(values) * _MARGIN
    if hi / lo < _MIN_SPAN:
        widen = math.sqrt(_MIN_SPAN / (hi / lo))
        lo, hi = lo / widen, hi * widen
    return lo, hi


def _x_range(
    xs: Sequence[float], roofs: Sequence[tuple[str, float]], bw: float
) -> tuple[float, float]:
    """The x axis: every point and every ridge (where a roof meets the DRAM slope)."""
    ridges = [peak / bw for _, peak in roofs] if bw > 0 else []
    return _span([*xs, *ridges])


def _finish_axes(ax: Axes, x_range: tuple[float, float], ys: Sequence[float]) -> None:
    """Limits, plain-number ticks (10, not 10^1) and labels of the chart's axes."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xlim(*x_range)
    ax.set_ylim(*_span(ys))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda v, _: _core._format_number(v)))
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("Arithmetic intensity (FLOP per DRAM byte)")
    ax.set_ylabel("TFLOP/s")
    ax.grid(True, which="major", linestyle="--", alpha=0.4)
    ax.legend(loc="lower right", fontsize=8)


def _roof_line(peak: float, bw: float, x_lo: float, x_hi: float) -> tuple[list, list]:
    """The corners of min(peak, x * bw) between ``x_lo`` and ``x_hi``."""
    if not bw > 0:  # no DRAM peak measured: the compute roof alone
        return [x_lo, x_hi], [peak, peak]
    ridge = peak / bw
    xs = [x_lo, *([ridge] if x_lo < ridge < x_hi else []), x_hi]
    return xs, [min(peak, x * bw) for x in xs]


def _draw_roofs(
    ax: Axes, roofs: Sequence[tuple[str, float]], bw: float, x_lo: float, x_hi: float
) -> None:
    """One line min(peak, x * DRAM peak) per precision, and the DRAM slope as its own line."""
    fmt = _core._format_number
    for name, peak in roofs:
        color, dashes = _ROOF_STYLE.get(name, ("#222222", "-"))
        xs, ys = _roof_line(peak, bw, x_lo, x_hi)
        label = f"{name} peak {fmt(peak, 3)} TFLOP/s"
        ax.plot(xs, ys, color=color, linestyle=dashes, linewidth=1.6, label=label, zorder=2)
    if bw > 0:
        # The slope ends under the highest roof, where no kernel can be faster.
        x_top = min(max(peak for _, peak in roofs) / bw, x_hi) if roofs else x_hi
        ax.plot(
            [x_lo, x_top],
            [x_lo * bw, x_top * bw],
            color=_DRAM_COLOR,
            linestyle="--",
            linewidth=1.2,
            label=f"DRAM {fmt(bw, 3)} TB/s",
            zorder=2.5,
        )


def _draw_points(ax: Axes, frame: pd.DataFrame) -> None:
    """A point per row, coloured by annotation and labelled with its region."""
    annotations = list(dict.fromkeys(frame["Annotation"]))
    for i, annotation in enumerate(annotations):
        rows = frame[frame["Annotation"] == annotation]
        style = series_style(i)
        xs = rows["ArithmeticIntensity"].astype(float).tolist()
        ys = rows["AchievedTFLOPs"].astype(float).tolist()
        ax.scatter(xs, ys, color=style.color, marker=style.marker, s=36, zorder=3, label=None)
        for (_, row), x, y in zip(rows.iterrows(), xs, ys, strict=True):
            ax.annotate(
                region_label(row),
                (x, y),
                textcoords="offset points",
                xytext=(5, 4),
                fontsize=7,
                color=style.color,
            )


def _left_out_note(frame: pd.DataFrame) -> str:
    """Says which regions have no point (no FLOP or no DRAM bytes), the first few by name."""
    names = [region_label(row) for _, row in frame.iterrows()]
    shown = ", ".join(names[:_NOTE_NAMES])
    if len(names) > _NOTE_NAMES:
        shown += f" and {len(names) - _NOTE_NAMES} more"
    return f"left out, no FLOP or no DRAM bytes measured: {shown}"


def _no_point_error(frame: pd.DataFrame) -> OptionError:
    n = len(frame)
    return OptionError(
        "results",
        f"{n} region{'s' if n != 1 else ''} without FLOP per DRAM byte",
        "results of set:analysis where some region did floating-point work and moved DRAM bytes",
        message=(
            "no region can be drawn on the roofline: "
            + (
                f"none of the {n} has both FLOP and DRAM bytes (ArithmeticIntensity is NaN)"
                if n
                else "the results have no rows"
            )
        ),
    )


def _figure(frame: pd.DataFrame, session: Mapping[str, Any], title: str | None) -> Figure:
    """The chart of an analysis DataFrame that has at least one drawable row."""
    from matplotlib.figure import Figure

    _show_in_notebooks()
    drawable = _drawable(frame)
    points = frame[drawable]
    roofs = _roofs(frame)
    bw = _dram_peak(frame)
    ys = points["AchievedTFLOPs"].astype(float).tolist()
    x_lo, x_hi = _x_range(points["ArithmeticIntensity"].astype(float).tolist(), roofs, bw)
    fig = Figure(figsize=(8.5, 5.5), layout="constrained")
    ax = fig.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    _draw_roofs(ax, roofs, bw, x_lo, x_hi)
    _draw_points(ax, points)
    # The y axis shows every point and every roof, the slope where it enters the chart too.
    roof_ys = [peak for _, peak in roofs] + ([x_lo * bw] if bw > 0 else [])
    _finish_axes(ax, (x_lo, x_hi), [*ys, *roof_ys])
    if not drawable.all():  # above the DRAM slope nothing can sit, so the note hides nothing
        note = _left_out_note(frame[~drawable])
        ax.text(0.01, 0.99, note, transform=ax.transAxes, va="top", ha="left", fontsize=7)
    heading = "Roofline" if title is None else title
    sub = context_line(session)
    fig.suptitle(f"{heading}\n{sub}" if heading and sub else heading or sub, fontsize=11)
    return fig


def draw_roofline(
    frame: pd.DataFrame,
    session: Mapping[str, Any] | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """The chart :func:`plot_roofline` draws, from an analysis DataFrame already at hand
    (``results.analysis()``): for callers that have it, such as the HTML report.

    Raises:
        kprof.errors.OptionError: No row has both FLOP and DRAM bytes (option ``"results"``).
        ImportError: matplotlib is not installed.
    """
    require_matplotlib()
    if not _drawable(frame).any():
        raise _no_point_error(frame)
    return _figure(frame, dict(session or {}), title)


def plot_roofline(
    results: Any,
    filename: str | os.PathLike[str] | None = None,
    *,
    title: str | None = None,
    overwrite: bool = True,
) -> Figure:
    """Draws the roofline of results that measured ``metrics=["set:analysis"]`` and returns
    the matplotlib ``Figure``; writes it to ``filename`` (png, svg, pdf... by extension) when
    given.

    Both axes are logarithmic: x is the arithmetic intensity (FLOP per DRAM byte), y the TFLOP/s
    achieved. Each precision some region used (the tensor cores'; FP32, FP64 and FP16 where
    ``set:flop`` was measured, docs/analysis.md) gets its roof, min(peak, intensity x DRAM peak),
    with the highest peak the results measured for it (the peaks follow the clock measured during
    each kernel); the DRAM slope is drawn and labelled on its own. Each region (annotation and
    config, and kernel with ``per_kernel=True``) is a point labelled as ``results.explain()`` names
    it, e.g. ``matmul (n=4096)``. Regions without an intensity (no FLOP, or no DRAM bytes) have no
    place on the chart: a note in the figure names them.

    Every value drawn is a column of :meth:`kprof.ProfileResults.analysis`, computed by the
    core; nothing is recomputed here. Needs matplotlib (``pip install 'kprof[plot]'``); no
    display is needed, and in a notebook the returned figure shows itself.

    Args:
        results: The results: a :class:`kprof.ProfileResults` (anything with ``analysis()``
            and ``session``).
        filename: Where to write the picture; None writes nothing. The file is written
            atomically and missing folders are created.
        title: The first line of the title; ``"Roofline"`` by default, ``""`` for none. The
            line under it says where the results were measured.
        overwrite: Replace an existing ``filename`` (default); False raises
            :class:`kprof.errors.OutputExistsError` instead.

    Returns:
        The matplotlib ``Figure``.

    Raises:
        kprof.errors.OptionError: The results lack the metrics of ``set:analysis`` (option
            ``"metrics"``, from :meth:`~kprof.ProfileResults.analysis`), no region has both
            FLOP and DRAM bytes (option ``"results"``), or ``filename`` has an extension
            matplotlib cannot write (option ``"filename"``).
        TypeError: ``filename`` is not a path, or ``title`` not a str.
        ImportError: matplotlib is not installed.
    """
    require_matplotlib()
    picture_format(filename)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be None or a str, not {type(title).__name__}")
    frame = results.analysis()
    fig = draw_roofline(frame, results.session, title=title)
    if filename is not None:
        save_figure(fig, filename, overwrite=overwrite)
    return fig
