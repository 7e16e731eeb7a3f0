# SPDX-License-Identifier: Apache-2.0
"""Plots of kprof results with matplotlib: the drawing behind :func:`kprof.analyze.plot`,
:meth:`kprof.ProfileResults.plot` and :func:`kprof.plot_file`.

nsight-python's ``visualize`` draws one metric, at most 14 annotations (more are dropped
silently), no error bars, and ignores an unknown ``plot_type``. Here:

- several metrics go into one figure, one block of panels each (``metric=None`` draws every
  metric of the results);
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

import math
import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kprof._native import core as _core
from kprof.errors import OptionError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from kprof.results import ProfileResults

__all__ = ["PlotOptions", "plot_results", "plot_file", "series_style", "require_matplotlib"]

#: Series colours, NVIDIA green first. After the last colour, markers (lines) and hatches
#: (bars) change, then line styles: ``series_style(i)`` is distinct for the first
#: ``len(PALETTE) * len(MARKERS) * len(LINESTYLES)`` series.
PALETTE = (
    "#76B900",
    "#1F77B4",
    "#FF7F0E",
    "#9467BD",
    "#D62728",
    "#17BECF",
    "#8C564B",
    "#E377C2",
    "#7F7F7F",
    "#BCBD22",
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", ":", "-.")
HATCHES = ("", "//", "\\\\", "xx", "..", "oo", "--", "++")

PLOT_TYPES = ("line", "bar")
AGGREGATES = ("avg", "geomean")
XSCALES = ("auto", "category", "log", "linear")
YSCALES = ("linear", "log")

_AGGREGATE_LABEL = {"avg": "Avg", "geomean": "Geomean"}
_INSTALL_HINT = "pip install 'kprof[plot]' (or pip install matplotlib)"


def require_matplotlib() -> Any:
    """Imports matplotlib, or raises an ``ImportError`` saying how to install it."""
    try:
        import matplotlib
        import matplotlib.figure  # noqa: F401
    except ImportError as e:
        raise ImportError(
            f"kprof's plots need matplotlib, which is not installed: {_INSTALL_HINT}"
        ) from e
    return matplotlib


@dataclass(frozen=True)
class SeriesStyle:
    """How one series is drawn."""

    color: str
    marker: str
    linestyle: str
    hatch: str


def series_style(index: int) -> SeriesStyle:
    """The style of the ``index``-th series (from 0): the palette's colours first; after them
    the marker and hatch change, then the line style."""
    p, m = len(PALETTE), len(MARKERS)
    cycle = index // p
    return SeriesStyle(
        color=PALETTE[index % p],
        marker=MARKERS[cycle % m],
        linestyle=LINESTYLES[(cycle // m) % len(LINESTYLES)],
        hatch=HATCHES[cycle % len(HATCHES)],
    )


# --- options --------------------------------------------------------------------------------


def _names(option: str, value: Any) -> tuple[str, ...]:
    """A field list option: None, one name, or a sequence of names."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return tuple(dict.fromkeys(value))
    raise OptionError(option, repr(value), "None, a parameter name, or a list of parameter names")


def _choice(option: str, value: Any, valid: Sequence[Any]) -> None:
    if value not in valid:
        raise OptionError(option, repr(value), " or ".join(repr(v) for v in valid))


def _positive(option: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise OptionError(option, repr(value), "a positive number of inches")
    if not math.isfinite(value):
        raise OptionError(option, repr(value), "a positive number of inches")
    return float(value)


@dataclass(frozen=True)
class PlotOptions:
    """The options of a plot, checked as far as they can be without the data
    (:meth:`check`); :func:`plot_results` checks the rest against the results."""

    metric: str | tuple[str, ...] | None = None
    title: str | None = None
    ylabel: str | Mapping[str, str] | None = None
    annotate_points: bool = False
    show_aggregate: str | None = None
    plot_type: str = "line"
    plot_width: float = 6
    plot_height: float = 4
    row_panels: tuple[str, ...] = ()
    col_panels: tuple[str, ...] = ()
    x_keys: tuple[str, ...] | None = None
    print_data: bool = False
    variant_fields: tuple[str, ...] = ()
    variant_annotations: tuple[str, ...] | None = None
    plot_callback: Callable[[Any], Any] | None = None
    error_bars: bool = True
    xscale: str = "auto"
    yscale: str = "linear"

    @classmethod
    def make(cls, **options: Any) -> PlotOptions:
        """Builds and checks the options (``OptionError`` for a bad value, ``TypeError`` for
        an unknown option)."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(
                f"unknown plot option{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(unknown)}; valid: {', '.join(sorted(known))}"
            )
        metric = options.get("metric")
        if metric is not None and not isinstance(metric, str):
            if isinstance(metric, Sequence) and metric and all(isinstance(m, str) for m in metric):
                metric = tuple(dict.fromkeys(metric))
            else:
                raise OptionError(
                    "metric", repr(metric), "None (every metric), a metric name, or a list of them"
                )
        x_keys = options.get("x_keys")
        variant_annotations = options.get("variant_annotations")
        o = cls(
            metric=metric,
            title=options.get("title"),
            ylabel=options.get("ylabel"),
            annotate_points=bool(options.get("annotate_points", False)),
            show_aggregate=options.get("show_aggregate"),
            plot_type=options.get("plot_type", "line"),
            plot_width=options.get("plot_width", 6),
            plot_height=options.get("plot_height", 4),
            row_panels=_names("row_panels", options.get("row_panels")),
            col_panels=_names("col_panels", options.get("col_panels")),
            x_keys=None if x_keys is None else _names("x_keys", x_keys),
            print_data=bool(options.get("print_data", False)),
            variant_fields=_names("variant_fields", options.get("variant_fields")),
            variant_annotations=(
                None
                if variant_annotations is None
                else _names("variant_annotations", variant_annotations)
            ),
            plot_callback=options.get("plot_callback"),
            error_bars=bool(options.get("error_bars", True)),
            xscale=options.get("xscale", "auto"),
            yscale=options.get("yscale", "linear"),
        )
        o.check()
        return o

    def check(self) -> None:
        """The checks that need no data: choices, sizes, and fields used twice."""
        _choice("plot_type", self.plot_type, PLOT_TYPES)
        _choice("show_aggregate", self.show_aggregate, (None, *AGGREGATES))
        _choice("xscale", self.xscale, XSCALES)
        _choice("yscale", self.yscale, YSCALES)
        _positive("plot_width", self.plot_width)
        _positive("plot_height", self.plot_height)
        if self.title is not None and not isinstance(self.title, str):
            raise OptionError("title", repr(self.title), "None or a str")
        if self.ylabel is not None and not isinstance(self.ylabel, (str, Mapping)):
            raise OptionError("ylabel", repr(self.ylabel), "None, a str, or a dict metric -> str")
        if self.plot_callback is not None and not callable(self.plot_callback):
            raise OptionError(
                "plot_callback", repr(self.plot_callback), "None or a function taking the Figure"
            )
        if self.variant_annotations is not None and not self.variant_fields:
            raise OptionError(
                "variant_annotations",
                repr(list(self.variant_annotations)),
                "None unless variant_fields names the fields that split those annotations",
            )
        used: dict[str, str] = {}
        lists = [
            ("row_panels", self.row_panels),
            ("col_panels", self.col_panels),
            ("variant_fields", self.variant_fields),
            ("x_keys", self.x_keys or ()),
        ]
        for option, names in lists:
            for name in names:
                if name in used:
                    raise OptionError(
                        option,
                        repr(list(names)),
                        f"fields not already used by {used[name]} ({name!r} is); each "
                        "parameter goes to one of row_panels, col_panels, variant_fields, x_keys",
                    )
                used[name] = option
        if self.show_aggregate and self.xscale in ("log", "linear"):
            raise OptionError(
                "xscale",
                repr(self.xscale),
                "'auto' or 'category' with show_aggregate (the aggregate is a category of its own)",
            )
        if self.plot_type == "bar" and self.xscale in ("log", "linear"):
            raise OptionError("xscale", repr(self.xscale), "'auto' or 'category' for bar plots")


# --- the data of a plot -----------------------------------------------------------------------


def _key(value: Any) -> Hashable:
    """A grouping key for any config object (tensors and lists are not hashable)."""
    try:
        hash(value)
    except TypeError:
        return ("__unhashable__", type(value).__name__, repr(value))
    return value


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value)) if abs(value) >= 1e4 else str(value)
    return str(value)


def _short_kernel(name: str) -> str:
    """``kprof::demo::scale_kernel(float const*, ...)`` -> ``scale_kernel``."""
    text = name.removeprefix("void ")
    depth, cut = 0, len(text)
    for i, ch in enumerate(text):  # drop the parameter list and template arguments
        if ch in "(<":
            if depth == 0:
                cut = min(cut, i)
            depth += 1
        elif ch in ")>":
            depth = max(depth - 1, 0)
    text = text[:cut] or text
    return text.rsplit("::", 1)[-1] or name


@dataclass
class _Series:
    label: str
    index: int  # style index


@dataclass
class _Point:
    series: int
    x: int  # index into the x categories
    mean: float
    lower: float
    upper: float
    runs: int


@dataclass
class _Panel:
    metric: str
    row: tuple[Hashable, ...]
    col: tuple[Hashable, ...]
    title: str
    points: list[_Point] = field(default_factory=list)


@dataclass
class _MetricInfo:
    unit: str  # the stored unit
    factor: float  # stored value * factor = displayed value
    shown_unit: str
    baseline: str  # the annotation the values are relative to, or ""
    runs: tuple[int, int]  # (min, max) NumRuns


def _fields_text(names: Sequence[str], values: Sequence[Any]) -> str:
    return ", ".join(f"{n}={_text(v)}" for n, v in zip(names, values, strict=True))


def _combos(df: pd.DataFrame, names: Sequence[str]) -> tuple[list[tuple[Hashable, ...]], dict]:
    """The distinct value combinations of `names` in order of first appearance, and the
    original values of each (for labels)."""
    keys: dict[tuple[Hashable, ...], tuple[Any, ...]] = {}
    columns = [df[n].tolist() for n in names]
    for i in range(len(df)):
        values = tuple(c[i] for c in columns)
        keys.setdefault(tuple(_key(v) for v in values), values)
    return list(keys), keys


def _check_fields(option: str, names: Sequence[str], parameters: Sequence[str]) -> None:
    for name in names:
        if name not in parameters:
            valid = ", ".join(repr(p) for p in parameters) or "none: the results have no parameter"
            raise OptionError(option, repr(list(names)), f"parameter names of the results: {valid}")


def _metrics(option: Any, available: Sequence[str]) -> list[str]:
    valid = ", ".join(repr(m) for m in available) or "none: the results have no rows"
    if option is None:
        return list(available)
    wanted = [option] if isinstance(option, str) else list(option)
    for m in wanted:
        if m not in available:
            raise OptionError("metric", repr(option), f"None (every metric) or one of {valid}")
    return wanted


def _pow2(values: Sequence[Any]) -> bool:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            return False
        if not math.isfinite(v) or not float(math.log2(v)).is_integer():
            return False
        out.append(v)
    return len(set(out)) >= 3


def _numeric(values: Sequence[Any]) -> bool:
    return all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values
    )


@dataclass
class _Plan:
    """Everything a figure shows, worked out from the results before anything is drawn."""

    metrics: list[str]
    info: dict[str, _MetricInfo]
    series: list[_Series]
    x_names: list[str]
    x_fixed: str  # "dtype=fp32": x fields with one value, left out of the tick labels
    x_values: list[tuple[Any, ...]]
    x_numeric: list[float] | None  # x positions when the axis is numeric, else None
    xscale: str  # "category", "log" or "linear"
    rows: list[tuple[str, tuple[Hashable, ...]]]  # (metric, row combo)
    cols: list[tuple[Hashable, ...]]
    panels: dict[tuple[int, int], _Panel]
    table: pd.DataFrame  # the plotted rows (print_data)


def _plan(results: ProfileResults, o: PlotOptions) -> _Plan:
    df = results.to_dataframe()
    parameters = results.parameters
    metrics = _metrics(o.metric, results.metrics)
    for option, names in (
        ("row_panels", o.row_panels),
        ("col_panels", o.col_panels),
        ("variant_fields", o.variant_fields),
        ("x_keys", o.x_keys or ()),
    ):
        _check_fields(option, names, parameters)
    annotations = list(dict.fromkeys(df["Annotation"].tolist()))
    if o.variant_annotations is not None:
        for a in o.variant_annotations:
            if a not in annotations:
                raise OptionError(
                    "variant_annotations",
                    repr(list(o.variant_annotations)),
                    "annotations of the results: " + ", ".join(repr(x) for x in annotations),
                )
    taken = set(o.row_panels) | set(o.col_panels) | set(o.variant_fields)
    x_names = list(o.x_keys) if o.x_keys is not None else [p for p in parameters if p not in taken]

    df = df[df["Metric"].isin(metrics)].reset_index(drop=True)
    per_kernel = "KernelIndex" in df.columns

    # Series: an annotation (and kernel), split by the variant fields where asked.
    labels: list[str] = []
    series_of_row: list[int] = []
    variants = list(o.variant_fields)
    split = set(annotations if o.variant_annotations is None else o.variant_annotations)
    for i in range(len(df)):
        ann = df.at[i, "Annotation"]
        label = str(ann)
        if per_kernel:
            label += f" [{int(df.at[i, 'KernelIndex'])}: {_short_kernel(str(df.at[i, 'Kernel']))}]"
        if variants and ann in split:
            label += " " + _fields_text(variants, [df.at[i, v] for v in variants])
        if label not in labels:
            labels.append(label)
        series_of_row.append(labels.index(label))
    series = [_Series(label, i) for i, label in enumerate(labels)]

    # Axes: x categories (sweep order), panel rows (metric x row fields) and columns. An x
    # field with one value throughout goes into the axis label rather than every tick.
    varying = [n for n in x_names if len(_combos(df, [n])[0]) > 1]
    x_fixed = ""
    if varying and len(varying) < len(x_names):
        fixed = [n for n in x_names if n not in varying]
        x_fixed = _fields_text(fixed, [df.at[0, n] for n in fixed])
        x_names = varying
    x_keys, x_orig = _combos(df, x_names)
    row_keys, row_orig = _combos(df, o.row_panels)
    col_keys, col_orig = _combos(df, o.col_panels)
    x_values = [x_orig[k] for k in x_keys]
    xscale = "category"
    x_numeric: list[float] | None = None
    single = [v[0] for v in x_values] if len(x_names) == 1 else []
    if o.xscale == "auto" and o.plot_type == "line" and not o.show_aggregate and _pow2(single):
        xscale = "log"
    elif o.xscale in ("log", "linear"):
        if not single or not _numeric(single) or (o.xscale == "log" and min(single) <= 0):
            raise OptionError(
                "xscale",
                repr(o.xscale),
                "'auto' or 'category' unless the x axis is one parameter of "
                + ("positive numbers" if o.xscale == "log" else "numbers")
                + f" (x_keys: {x_names})",
            )
        xscale = o.xscale
    if xscale != "category":
        x_numeric = [float(v) for v in single]

    rows = [(m, r) for m in metrics for r in (row_keys or [()])]
    cols = col_keys or [()]
    panels: dict[tuple[int, int], _Panel] = {}
    for ri, (m, r) in enumerate(rows):
        for ci, c in enumerate(cols):
            lines = [m] if len(metrics) > 1 else []
            if o.row_panels:
                lines.append(_fields_text(o.row_panels, row_orig[r]))
            if o.col_panels:
                lines.append(_fields_text(o.col_panels, col_orig[c]))
            panels[(ri, ci)] = _Panel(m, r, c, "\n".join(lines))

    row_index = {key: i for i, key in enumerate(rows)}
    col_index = {key: i for i, key in enumerate(cols)}
    x_index = {key: i for i, key in enumerate(x_keys)}
    seen: dict[tuple[int, int, int, int], int] = {}
    for i in range(len(df)):
        m = df.at[i, "Metric"]
        r = tuple(_key(df.at[i, n]) for n in o.row_panels)
        c = tuple(_key(df.at[i, n]) for n in o.col_panels)
        x = x_index[tuple(_key(df.at[i, n]) for n in x_names)]
        ri, ci, s = row_index[(m, r)], col_index[c], series_of_row[i]
        where = (ri, ci, s, x)
        if where in seen:
            _collision(df, seen[where], i, parameters, o, x_names)
        seen[where] = i
        panels[(ri, ci)].points.append(
            _Point(
                series=s,
                x=x,
                mean=float(df.at[i, "AvgValue"]),
                lower=float(df.at[i, "CI95_Lower"]),
                upper=float(df.at[i, "CI95_Upper"]),
                runs=int(df.at[i, "NumRuns"]),
            )
        )

    info = {m: _metric_info(df[df["Metric"] == m]) for m in metrics}
    shown = ["Annotation", "Metric", *parameters, "AvgValue", "CI95_Lower", "CI95_Upper"]
    shown += ["NumRuns", "Unit"]
    return _Plan(
        metrics=metrics,
        info=info,
        series=series,
        x_names=x_names,
        x_fixed=x_fixed,
        x_values=x_values,
        x_numeric=x_numeric,
        xscale=xscale,
        rows=rows,
        cols=cols,
        panels=panels,
        table=df[[c for c in shown if c in df.columns]],
    )


def _collision(
    df: pd.DataFrame, j: int, i: int, parameters: Sequence[str], o: PlotOptions, x_names: list[str]
) -> None:
    """Rows ``j`` and ``i`` would be drawn at the same point: says which option to change."""
    differ = [p for p in parameters if _key(df.at[i, p]) != _key(df.at[j, p])]
    ann = df.at[i, "Annotation"]
    if differ and all(p in o.variant_fields for p in differ):
        listed = list(o.variant_annotations or ())
        raise OptionError(
            "variant_annotations",
            repr(listed),
            f"a list that includes {ann!r}: its configs differ only in variant field"
            f"{'s' if len(differ) > 1 else ''} {', '.join(repr(p) for p in differ)}, so "
            "unsplit they fall on one point",
        )
    raise OptionError(
        "x_keys",
        repr(list(o.x_keys) if o.x_keys is not None else x_names),
        "keys that tell the configs apart: add "
        + ", ".join(repr(p) for p in differ)
        + f" to x_keys, variant_fields, row_panels or col_panels (configs of {ann!r} differ "
        "in it and would fall on one point)",
    )


def _metric_info(rows: pd.DataFrame) -> _MetricInfo:
    units = [u for u in rows["Unit"].tolist() if isinstance(u, str) and u]
    unit = units[0] if units else ""
    finite = [abs(v) for v in rows["AvgValue"].tolist() if math.isfinite(v)]
    factor, shown = _core._display_unit(max(finite) if finite else math.nan, unit)
    baselines = [b for b in rows["Normalized"].tolist() if isinstance(b, str) and b]
    runs = [int(n) for n in rows["NumRuns"].tolist()]
    return _MetricInfo(
        unit=unit,
        factor=float(factor),
        shown_unit=str(shown),
        baseline=baselines[0] if baselines else "",
        runs=(min(runs), max(runs)) if runs else (0, 0),
    )


# --- drawing ------------------------------------------------------------------------------------


def context_line(session: Mapping[str, Any]) -> str:
    """``NVIDIA H200 · vm · cupti-activity · cache all · 2026-11-30``: where the results were
    measured."""
    parts = [session.get("gpu", ""), session.get("host", "")]
    parts.append(session.get("backend", ""))
    if session.get("cache_control"):
        parts.append(f"cache {session['cache_control']}")
    if session.get("clock_control") not in (None, "", "none"):
        parts.append(f"clocks {session['clock_control']}")
    started = str(session.get("started_at", ""))
    if started:
        parts.append(started[:10])
    return " · ".join(str(p) for p in parts if p)


def _runs_text(info: Mapping[str, _MetricInfo]) -> str:
    lo = min(i.runs[0] for i in info.values())
    hi = max(i.runs[1] for i in info.values())
    return f"{lo} run{'s' if lo != 1 else ''}" if lo == hi else f"{lo}-{hi} runs"


def _ylabel(o: PlotOptions, metric: str, info: _MetricInfo) -> str:
    if isinstance(o.ylabel, str):
        return o.ylabel
    if isinstance(o.ylabel, Mapping) and metric in o.ylabel:
        return str(o.ylabel[metric])
    text = metric
    if info.baseline:
        text += f" relative to {info.baseline}"
    if info.shown_unit and info.shown_unit != "ratio":
        text += f" ({info.shown_unit})"
    return text


def _x_tick_labels(plan: _Plan) -> list[str]:
    if len(plan.x_names) == 1:
        return [_text(v[0]) for v in plan.x_values]
    if not plan.x_names:
        return [""]
    return [
        "\n".join(f"{n}={_text(v)}" for n, v in zip(plan.x_names, values, strict=True))
        for values in plan.x_values
    ]


def _draw_panel(
    ax: Axes, plan: _Plan, panel: _Panel, o: PlotOptions, handles: dict[int, Any]
) -> None:
    info = plan.info[panel.metric]
    f = info.factor
    categorical = plan.x_numeric is None
    n_x = len(plan.x_values)
    by_series: dict[int, list[_Point]] = {}
    for p in panel.points:
        by_series.setdefault(p.series, []).append(p)
    if not by_series:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    present = sorted(by_series)
    width = 0.8 / max(len(present), 1)
    lowest = math.inf
    for slot, s in enumerate(present):
        pts = sorted(by_series[s], key=lambda p: p.x)
        style = series_style(plan.series[s].index)
        label = plan.series[s].label
        if categorical:
            xs = [float(p.x) for p in pts]
        else:
            assert plan.x_numeric is not None
            xs = [plan.x_numeric[p.x] for p in pts]
        ys = [p.mean * f for p in pts]
        err = None
        if o.error_bars:
            lo = [max(p.mean - p.lower, 0.0) * f if math.isfinite(p.lower) else 0.0 for p in pts]
            hi = [max(p.upper - p.mean, 0.0) * f if math.isfinite(p.upper) else 0.0 for p in pts]
            if any(v > 0 for v in lo + hi):
                err = [lo, hi]
        lows = [y - (err[0][i] if err else 0.0) for i, y in enumerate(ys) if math.isfinite(y)]
        lowest = min([lowest, *lows])
        if o.plot_type == "bar":
            offset = (slot - (len(present) - 1) / 2) * width
            artist = ax.bar(
                [x + offset for x in xs],
                ys,
                width,
                yerr=err,
                color=style.color,
                hatch=style.hatch or None,
                edgecolor="black" if style.hatch else style.color,
                linewidth=0.5,
                capsize=2,
                label=label,
                error_kw={"elinewidth": 1, "ecolor": "#222222"},
            )
            xs_text = [x + offset for x in xs]
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
            xs_text = xs
        handles.setdefault(s, artist)
        if o.annotate_points:
            for x, y in zip(xs_text, ys, strict=True):
                if math.isfinite(y):
                    ax.annotate(
                        _core._format_number(y),
                        (x, y),
                        textcoords="offset points",
                        xytext=(0, 5),
                        ha="center",
                        fontsize=7,
                    )
        if o.show_aggregate:
            values = [p.mean for p in pts if math.isfinite(p.mean)]
            agg = _core._mean(values) if o.show_aggregate == "avg" else _core._geomean(values)
            agg_x = n_x + 0.5
            if o.plot_type == "bar":
                agg_x += (slot - (len(present) - 1) / 2) * width
                ax.bar(
                    [agg_x],
                    [agg * f],
                    width,
                    color=style.color,
                    hatch=style.hatch or None,
                    edgecolor="black" if style.hatch else style.color,
                    linewidth=0.5,
                )
            else:
                ax.plot([agg_x], [agg * f], color=style.color, marker=style.marker, markersize=7)
            if o.annotate_points and math.isfinite(agg):
                ax.annotate(
                    _core._format_number(agg * f),
                    (agg_x, agg * f),
                    textcoords="offset points",
                    xytext=(0, 5),
                    ha="center",
                    fontsize=7,
                )

    labels = _x_tick_labels(plan)
    if categorical:
        ticks = list(range(n_x))
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
        assert plan.x_numeric is not None
        if plan.xscale == "log":
            ax.set_xscale("log", base=2)
        ax.set_xticks(plan.x_numeric)
        ax.set_xticklabels(labels, fontsize=9)
        ax.minorticks_off()
    xlabel = plan.x_names[0] if len(plan.x_names) == 1 else ""
    if plan.x_fixed:
        xlabel = f"{xlabel} ({plan.x_fixed})" if xlabel else plan.x_fixed
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(_ylabel(o, panel.metric, info))
    if o.yscale == "log":
        ax.set_yscale("log")
    elif math.isfinite(lowest) and lowest >= 0:
        ax.set_ylim(bottom=0)
    if o.annotate_points:
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi + (hi - lo) * 0.08)
    ax.grid(True, axis="y", linestyle="--", alpha=0.5)
    if panel.title:
        ax.set_title(panel.title, fontsize=10)


def _draw(plan: _Plan, o: PlotOptions, session: Mapping[str, Any], default_title: str) -> Figure:
    require_matplotlib()
    from matplotlib.figure import Figure

    if not plan.rows:  # no rows at all: say so rather than draw empty axes
        fig = Figure(figsize=(o.plot_width, o.plot_height), layout="constrained")
        fig.text(0.5, 0.5, "no results to plot", ha="center", va="center")
        fig.suptitle(o.title if o.title is not None else default_title, fontsize=11)
        return fig
    nrows, ncols = len(plan.rows), len(plan.cols)
    legend_width = 2.8 if plan.series else 0.0
    fig = Figure(
        figsize=(o.plot_width * ncols + legend_width, o.plot_height * nrows + 0.9),
        layout="constrained",
    )
    axes = fig.subplots(nrows, ncols, squeeze=False)
    handles: dict[int, Any] = {}
    for (ri, ci), panel in plan.panels.items():
        _draw_panel(axes[ri][ci], plan, panel, o, handles)
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
            sub += ", bars: 95% CI"
    fig.suptitle(f"{title}\n{sub}" if title else sub, fontsize=11)
    return fig


def save_figure(fig: Figure, filename: str | os.PathLike[str]) -> str:
    """Writes the figure atomically (a temporary file, then a rename); the format follows the
    extension (png, svg, pdf...). Missing folders are created. Returns the path."""
    from kprof._files import write_atomic

    path = os.fspath(filename)
    ext = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    return write_atomic(path, lambda out: fig.savefig(out, format=ext, dpi=110))


def plot_results(
    results: ProfileResults,
    filename: str | os.PathLike[str] | None = None,
    *,
    checked: PlotOptions | None = None,
    default_title: str = "",
    **options: Any,
) -> Figure:
    """Draws ``results`` and returns the matplotlib ``Figure``; writes it to ``filename``
    when given. The options are those of :func:`kprof.analyze.plot` (or ``checked``, options
    already made with :meth:`PlotOptions.make`)."""
    o = checked if checked is not None else PlotOptions.make(**options)
    require_matplotlib()
    plan = _plan(results, o)
    if o.print_data:
        print(plan.table.to_string(index=False))
    fig = _draw(plan, o, results.session, default_title)
    if o.plot_callback is not None:
        o.plot_callback(fig)
    if filename is not None:
        save_figure(fig, filename)
    return fig


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
    from kprof.results import load

    options.setdefault("title", os.path.basename(os.fspath(path)))
    return plot_results(load(path), filename, **options)
