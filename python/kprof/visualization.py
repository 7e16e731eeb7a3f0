# SPDX-License-Identifier: Apache-2.0
"""Plots of kprof results with matplotlib: the drawing behind :func:`kprof.analyze.plot`,
:meth:`kprof.ProfileResults.plot` and :func:`kprof.plot_file`.

nsight-python's ``visualize`` draws one metric, at most 14 annotations (more are dropped
silently), no error bars, and ignores an unknown ``plot_type``. Here:

- several metrics go into one figure, one block of panels each (``metric=None`` draws every
  metric of the results), laid out in a grid of bounded size when there are many
  (:mod:`kprof._plot_layout`), the metrics that do not fit named under it;
- any number of series: the colours cycle through a palette, then markers, line styles and bar
  hatches change, so every series stays distinct and in the legend;
- error bars show the 95% confidence interval of the mean (``CI95_Lower`` / ``CI95_Upper``);
- a single numeric x parameter of powers of two is drawn on a log2 axis, at its true spacing;
- values are scaled to a readable unit (2.68e6 ns reads 2.68 ms) by the core's own rule, the one
  the text table uses, and the aggregates (``show_aggregate``) are the core's mean and geomean;
- every bad option raises :class:`kprof.errors.OptionError` naming the option, the value and
  what is valid, before any GPU work where the option does not depend on the data.

matplotlib is optional (``pip install 'kprof[plot]'``): it is imported only when a plot is made,
and its absence raises an ``ImportError`` that says how to install it. Figures are built with
``matplotlib.figure.Figure`` directly, not pyplot: no display is needed and nothing is left
in pyplot's figure registry.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kprof import _saving
from kprof._files import write_atomic
from kprof._native import core as _core
from kprof._plot_layout import NOTE_FONTSIZE, Layout, layout, left_out_note, wrap
from kprof._plot_options import (
    PALETTE,
    PlotOptions,
    SeriesStyle,
    picture_format,
    require_matplotlib,
    series_style,
)
from kprof._plot_plan import MetricInfo, Panel, Plan, Point, make_plan, value_text
from kprof._results_data import ResultsData

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "PALETTE",
    "PlotOptions",
    "plot_results",
    "draw_results",
    "plot_file",
    "series_style",
    "require_matplotlib",
    "context_line",
    "save_figure",
    "picture_format",
]

_AGGREGATE_LABEL = {"avg": "Avg", "geomean": "Geomean"}

# --- drawing ------------------------------------------------------------------------------------


def context_line(session: Mapping[str, Any]) -> str:
    """``NVIDIA H200 · vm · cupti-activity · cache all · 2026-11-30``: where the results were
    measured (the core's ``kprof::context_line``)."""
    return str(_core.context_line(dict(session)))


def _runs_text(info: Mapping[str, MetricInfo]) -> str:
    lo = min(i.runs[0] for i in info.values())
    hi = max(i.runs[1] for i in info.values())
    return f"{lo} run{'s' if lo != 1 else ''}" if lo == hi else f"{lo}-{hi} runs"


def _ylabel(o: PlotOptions, metric: str, info: MetricInfo, titled: bool) -> str:
    """The y label: the metric, what it is relative to and its unit; the metric's name is left
    to the panel's title where that names it (``titled``), as with several metrics."""
    if isinstance(o.ylabel, str):
        return o.ylabel
    if isinstance(o.ylabel, Mapping) and metric in o.ylabel:
        return str(o.ylabel[metric])
    text = "" if titled else metric
    if info.baseline:
        text += f" relative to {info.baseline}"
    if info.shown_unit and info.shown_unit != "ratio":
        text += f" ({info.shown_unit})" if text else info.shown_unit
    return text.strip()


def _x_tick_labels(plan: Plan) -> list[str]:
    if len(plan.x_names) == 1:
        return [value_text(v[0]) for v in plan.x_values]
    if not plan.x_names:
        return [""]
    return [
        "\n".join(f"{n}={value_text(v)}" for n, v in zip(plan.x_names, values, strict=True))
        for values in plan.x_values
    ]


def _draw_panel(
    ax: Axes,
    plan: Plan,
    panel: Panel,
    o: PlotOptions,
    handles: dict[int, Any],
    size: tuple[float, float],
) -> None:
    by_series: dict[int, list[Point]] = {}
    for p in panel.points:
        by_series.setdefault(p.series, []).append(p)
    if not by_series:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    present = sorted(by_series)
    lowest = math.inf
    for slot, s in enumerate(present):
        pts = sorted(by_series[s], key=lambda p: p.x)
        offset = (slot - (len(present) - 1) / 2) * _bar_width(len(present))
        low = _draw_series(ax, plan, panel, s, pts, offset, len(present), o, handles)
        lowest = min(lowest, low)
    _finish_axes(ax, plan, panel, o, lowest)
    _label_panel(ax, plan, panel, o, size)


def _bar_width(n_series: int) -> float:
    return 0.8 / max(n_series, 1)


def _error_bars(pts: Sequence[Point], f: float) -> list[list[float]] | None:
    """The 95% interval around each mean, in displayed units; None when it is nowhere wider
    than the point."""
    lo = [max(p.mean - p.lower, 0.0) * f if math.isfinite(p.lower) else 0.0 for p in pts]
    hi = [max(p.upper - p.mean, 0.0) * f if math.isfinite(p.upper) else 0.0 for p in pts]
    return [lo, hi] if any(v > 0 for v in lo + hi) else None


def _draw_series(
    ax: Axes,
    plan: Plan,
    panel: Panel,
    s: int,
    pts: Sequence[Point],
    offset: float,
    n_series: int,
    o: PlotOptions,
    handles: dict[int, Any],
) -> float:
    """Draws one series of a panel (bars shifted by ``offset``); returns its lowest value
    shown, error bar included."""
    if plan.many_x:
        return _draw_many(ax, plan, panel, s, pts, o, handles)
    f = plan.info[panel.metric].factor
    style = series_style(plan.series[s].index)
    label = plan.series[s].label
    if plan.x_numeric is None:
        xs = [float(p.x) for p in pts]
    else:
        xs = [plan.x_numeric[p.x] for p in pts]
    ys = [p.mean * f for p in pts]
    err = _error_bars(pts, f) if o.error_bars else None
    lows = [y - (err[0][i] if err else 0.0) for i, y in enumerate(ys) if math.isfinite(y)]
    if o.plot_type == "bar":
        xs = [x + offset for x in xs]
        artist = ax.bar(
            xs,
            ys,
            _bar_width(n_series),
            yerr=err,
            color=style.color,
            hatch=style.hatch or None,
            edgecolor="black" if style.hatch else style.color,
            linewidth=0.5,
            capsize=2,
            label=label,
            error_kw={"elinewidth": 1, "ecolor": "#222222"},
        )
    else:
        artist = ax.errorbar(
            xs,
            ys,
            yerr=err,
            color=style.color,
            marker=style.marker,
            linestyle=style.linestyle,
            markersize=5,
            capsize=3,
            elinewidth=1,
            label=label,
        )
    handles.setdefault(s, artist)
    if o.annotate_points:
        for x, y in zip(xs, ys, strict=True):
            if math.isfinite(y):
                _annotate(ax, x, y)
    if o.show_aggregate:
        x = len(plan.x_values) + 0.5 + (offset if o.plot_type == "bar" else 0.0)
        _draw_aggregate(ax, pts, x, n_series, style, o, f)
    return min([math.inf, *lows])


def _draw_many(
    ax: Axes,
    plan: Plan,
    panel: Panel,
    s: int,
    pts: Sequence[Point],
    o: PlotOptions,
    handles: dict[int, Any],
) -> float:
    """One series of more than ``MANY_X`` points: a line in the order of the x axis, its 95%
    interval a band, its aggregate a dotted level; no marker, bar or number per point, which
    would cover each other. One artist each, whatever the number of points."""
    f = plan.info[panel.metric].factor
    style = series_style(plan.series[s].index)
    assert plan.x_numeric is not None
    pts = sorted(pts, key=lambda p: plan.x_numeric[p.x])
    xs = [plan.x_numeric[p.x] for p in pts]
    ys = [p.mean * f for p in pts]
    (artist,) = ax.plot(xs, ys, color=style.color, linestyle=style.linestyle, linewidth=1)
    artist.set_label(plan.series[s].label)
    handles.setdefault(s, artist)
    err = _error_bars(pts, f) if o.error_bars else None
    if err:
        lower = [y - d for y, d in zip(ys, err[0], strict=True)]
        upper = [y + d for y, d in zip(ys, err[1], strict=True)]
        ax.fill_between(xs, lower, upper, color=style.color, alpha=0.25, linewidth=0)
    if o.show_aggregate:
        values = [p.mean for p in pts if math.isfinite(p.mean)]
        agg = _core._mean(values) if o.show_aggregate == "avg" else _core._geomean(values)
        if math.isfinite(agg):
            ax.axhline(agg * f, color=style.color, linestyle=":", linewidth=1.2)
            ax.annotate(
                f"{_AGGREGATE_LABEL[o.show_aggregate]} {_core._format_number(agg * f)}",
                (1.0, agg * f),
                xycoords=("axes fraction", "data"),
                xytext=(2, 0),
                textcoords="offset points",
                va="center",
                fontsize=7,
                color=style.color,
            )
    lows = lower if err else ys
    return min([math.inf, *(y for y in lows if math.isfinite(y))])


def _draw_aggregate(
    ax: Axes,
    pts: Sequence[Point],
    x: float,
    n_series: int,
    style: SeriesStyle,
    o: PlotOptions,
    f: float,
) -> None:
    """The series' mean or geomean (the core's) at ``x``, right of the categories."""
    values = [p.mean for p in pts if math.isfinite(p.mean)]
    agg = _core._mean(values) if o.show_aggregate == "avg" else _core._geomean(values)
    if o.plot_type == "bar":
        ax.bar(
            [x],
            [agg * f],
            _bar_width(n_series),
            color=style.color,
            hatch=style.hatch or None,
            edgecolor="black" if style.hatch else style.color,
            linewidth=0.5,
        )
    else:
        ax.plot([x], [agg * f], color=style.color, marker=style.marker, markersize=7)
    if o.annotate_points and math.isfinite(agg):
        _annotate(ax, x, agg * f)


def _annotate(ax: Axes, x: float, y: float) -> None:
    ax.annotate(
        _core._format_number(y),
        (x, y),
        textcoords="offset points",
        xytext=(0, 5),
        ha="center",
        fontsize=7,
    )


def _tick_text(value: float) -> str:
    """A tick's number as the table prints it, 7e+14 rather than its 15 digits when large."""
    return _core._format_number(value) if abs(value) < 1e6 else f"{value:.3g}"


def _finish_axes(ax: Axes, plan: Plan, panel: Panel, o: PlotOptions, lowest: float) -> None:
    """Ticks, scales and limits of a panel whose series are drawn."""
    from matplotlib.ticker import FuncFormatter

    n_x = len(plan.x_values)
    if plan.many_x:
        _many_x_ticks(ax, plan)
    elif plan.x_numeric is None:
        labels = _x_tick_labels(plan)
        ticks: list[float] = list(range(n_x))
        if o.show_aggregate:
            ax.axvline(n_x - 0.25, color="#888888", linestyle="--", linewidth=0.8)
            ticks.append(n_x + 0.5)
            labels = [*labels, _AGGREGATE_LABEL[o.show_aggregate]]
        ax.set_xticks(ticks)
        many = len(ticks) > 6 or any(len(line) > 14 for t in labels for line in t.split("\n"))
        ax.set_xticklabels(
            labels, rotation=45 if many else 0, ha="right" if many else "center", fontsize=9
        )
        ax.set_xlim(-0.6, ticks[-1] + 0.6)
    else:
        if plan.xscale == "log":
            ax.set_xscale("log", base=2)
        ax.set_xticks(plan.x_numeric)
        ax.set_xticklabels(_x_tick_labels(plan), fontsize=9)
        ax.minorticks_off()
    if o.yscale == "log":
        ax.set_yscale("log")
    else:  # ticks that say their number, rather than "1e14" over the panel's title
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: _tick_text(v)))
        if math.isfinite(lowest) and lowest >= 0:
            ax.set_ylim(bottom=0)
    if o.annotate_points:
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi + (hi - lo) * 0.08)
    ax.grid(True, axis="y", linestyle="--", alpha=0.5)


def _many_x_ticks(ax: Axes, plan: Plan) -> None:
    """The x axis of more than ``MANY_X`` values: matplotlib's few ticks, numbers as the table
    prints them (whole numbers for a config's index), the axis as wide as the values."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    if plan.xscale == "log":
        ax.set_xscale("log", base=2)
    elif plan.xscale == "index":
        ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
    assert plan.x_numeric is not None
    lo, hi = min(plan.x_numeric), max(plan.x_numeric)
    if plan.xscale != "log":  # every tick in one form: 2e+05 ... 1e+06, not 200000 ... 1e+06
        large = max(abs(lo), abs(hi)) >= 1e6
        ax.xaxis.set_major_formatter(
            FuncFormatter(lambda v, _: f"{v:.3g}" if large else _tick_text(v))
        )
    ax.tick_params(axis="x", labelsize=9)
    ax.set_xlim(lo, hi)


def _label_panel(
    ax: Axes, plan: Plan, panel: Panel, o: PlotOptions, size: tuple[float, float]
) -> None:
    """The panel's title and axis labels, wrapped to its ``size`` (inches)."""
    xlabel = plan.x_names[0] if len(plan.x_names) == 1 else ""
    if plan.xscale == "index":
        xlabel = f"config, in sweep order ({len(plan.x_values):,} configs"
        xlabel += f": {', '.join(plan.x_names)})" if plan.x_names else ")"
    if plan.x_fixed:
        xlabel = f"{xlabel} ({plan.x_fixed})" if xlabel else plan.x_fixed
    if xlabel:
        ax.set_xlabel(wrap(xlabel, size[0], 10))
    titled = len(plan.metrics) > 1
    ylabel = _ylabel(o, panel.metric, plan.info[panel.metric], titled)
    ax.set_ylabel(wrap(ylabel, size[1], 10))
    if panel.title:
        ax.set_title(wrap(panel.title, size[0], 10), fontsize=10)


def _show_in_notebooks() -> None:
    """In IPython and Jupyter, makes figures show as PNG. kprof draws on ``Figure`` without
    pyplot, so the formatter that pyplot's inline backend registers may not be there: without
    it a notebook prints ``<Figure size 880x490 with 1 Axes>`` instead of the plot."""
    import sys

    if "IPython" not in sys.modules:
        return
    from IPython import get_ipython
    from matplotlib.figure import Figure

    shell = get_ipython()
    if shell is None:
        return
    png = shell.display_formatter.formatters["image/png"]
    if Figure in png.type_printers:
        return

    def to_png(fig: Figure) -> bytes:
        import io

        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        return buffer.getvalue()

    png.for_type(Figure, to_png)


def _draw(
    plan: Plan, o: PlotOptions, grid: Layout, session: Mapping[str, Any], default_title: str
) -> Figure:
    require_matplotlib()
    from matplotlib.figure import Figure

    _show_in_notebooks()

    if not plan.rows:  # no rows at all: say so rather than draw empty axes
        fig = Figure(figsize=(o.plot_width, o.plot_height), layout="constrained")
        fig.text(0.5, 0.5, "no results to plot", ha="center", va="center")
        fig.suptitle(o.title if o.title is not None else default_title, fontsize=11)
        return fig
    fig = Figure(figsize=grid.size, layout="constrained")
    axes = fig.subplots(grid.nrows, grid.ncols, squeeze=False)
    handles: dict[int, Any] = {}
    for where, panel in plan.panels.items():
        if where in grid.cells:
            row, col = grid.cells[where]
            _draw_panel(axes[row][col], plan, panel, o, handles, grid.panel)
    used = set(grid.cells.values())
    for row in range(grid.nrows):  # a last grid row that is not full
        for col in range(grid.ncols):
            if (row, col) not in used:
                axes[row][col].remove()
    if grid.left_out:
        note = left_out_note(grid.drawn, grid.left_out, grid.size[0])
        fig.supxlabel(note, fontsize=NOTE_FONTSIZE, color="#8a3b00")
    if handles:
        order = sorted(handles)
        fig.legend(
            [handles[s] for s in order],
            [plan.series[s].label for s in order],
            title="Annotation",
            loc="outside right center",
            fontsize=8,
            title_fontsize=9,
        )
    title = o.title if o.title is not None else default_title
    sub = context_line(session)
    if plan.info:
        sub += f" · mean of {_runs_text(plan.info)}"
        if o.error_bars:
            sub += ", band: 95% CI" if plan.many_x else ", bars: 95% CI"
    fig.suptitle(f"{title}\n{sub}" if title else sub, fontsize=11)
    return fig


def _drawn_as(plan: Plan, o: PlotOptions) -> PlotOptions:
    """Lines join a series' points along the x axis. With one x value (results without
    parameters, or of one config) there is nothing to join and every series' point would sit
    on one vertical line, hiding equal values: bars side by side show each. Not where a series
    has several points at that x (an annotation left out of ``variant_annotations``)."""
    if plan.many_x:  # thousands of bars are thinner than a pixel: lines
        return dataclasses.replace(o, plot_type="line")
    if o.plot_type != "line" or len(plan.x_values) != 1 or plan.x_numeric is not None:
        return o
    for panel in plan.panels.values():
        series = [p.series for p in panel.points]
        if len(series) != len(set(series)):
            return o
    return dataclasses.replace(o, plot_type="bar")


def save_figure(fig: Figure, filename: str | os.PathLike[str], *, overwrite: bool = True) -> str:
    """Writes the figure atomically (a temporary file, then a rename); the format follows the
    extension (png, svg, pdf...; png without one). Missing folders are created; an existing
    file is replaced unless ``overwrite`` is False (then :class:`kprof.errors.OutputExistsError`).
    Returns the path."""
    ext = picture_format(filename)
    return write_atomic(
        filename, lambda out: fig.savefig(out, format=ext, dpi=110), overwrite=overwrite
    )


def draw_results(
    results: ResultsData,
    filename: str | os.PathLike[str] | None = None,
    *,
    checked: PlotOptions | None = None,
    default_title: str = "",
    overwrite: bool = True,
    frame: pd.DataFrame | None = None,
    **options: Any,
) -> tuple[Figure, Layout]:
    """:func:`plot_results`, and the grid it drew: which metrics the figure holds and which
    did not fit (``Layout.left_out``), for callers that say so (``kprof report --plot``).
    ``frame`` is ``results.to_dataframe()`` where the caller has it (a figure per metric)."""
    o = checked if checked is not None else PlotOptions.make(**options)
    require_matplotlib()
    picture_format(filename)
    plan = make_plan(results, o, frame)
    if o.print_data:
        print(plan.table.to_string(index=False))
    grid = layout(plan, (o.plot_width, o.plot_height))
    fig = _draw(plan, _drawn_as(plan, o), grid, results.session, default_title)
    if o.plot_callback is not None:
        o.plot_callback(fig)
    if filename is not None:
        save_figure(fig, filename, overwrite=overwrite)
    return fig, grid


def plot_results(
    results: ResultsData,
    filename: str | os.PathLike[str] | None = None,
    *,
    checked: PlotOptions | None = None,
    default_title: str = "",
    overwrite: bool = True,
    **options: Any,
) -> Figure:
    """Draws ``results`` and returns the matplotlib ``Figure``; writes it to ``filename``
    when given (replacing a file there unless ``overwrite`` is False). The options are those
    of :func:`kprof.analyze.plot` (or ``checked``, options already made with
    :meth:`PlotOptions.make`), checked with ``filename`` before anything is drawn. Metrics
    are laid out in a grid of bounded size (:mod:`kprof._plot_layout`); those that do not fit
    are named under the figure."""
    return draw_results(
        results,
        filename,
        checked=checked,
        default_title=default_title,
        overwrite=overwrite,
        **options,
    )[0]


def plot_file(
    path: str | os.PathLike[str], filename: str | os.PathLike[str] | None = None, **options: Any
) -> Figure:
    """Plots results saved with :meth:`kprof.ProfileResults.save` (JSON or Parquet).

    Args:
        path: The saved results.
        filename: Where to write the picture (png, svg, pdf...); None writes nothing.
        **options: The options of :func:`kprof.analyze.plot`. The title defaults to the
            file's name.

    Returns:
        The matplotlib ``Figure``.
    """
    options.setdefault("title", os.path.basename(os.fspath(path)))
    return plot_results(ResultsData(_saving.read(path)), filename, **options)
