# SPDX-License-Identifier: Apache-2.0
"""What a plot shows, worked out from the results before anything is drawn: the metrics, the
series (annotations, split by variant fields), the x categories or positions, the panels, and
each point's mean and 95% interval. Every option that depends on the data is checked here and
raises :class:`kprof.errors.OptionError` naming the option, the value and what is valid.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kprof._native import core as _core
from kprof._plot_options import PlotOptions
from kprof.errors import OptionError

if TYPE_CHECKING:
    import pandas as pd

    from kprof._results_data import ResultsData

__all__ = ["Plan", "Panel", "Point", "MetricInfo", "Series", "make_plan", "value_text", "MANY_X"]

# More x values than this do not fit as tick labels (nor as bars or markers): the axis becomes
# numeric (the one numeric parameter) or the configs' index in sweep order, with a bounded
# number of ticks, and the series are drawn as lines with their 95% interval as a band.
MANY_X = 50


def _key(value: Any) -> Hashable:
    """A grouping key for any config object (tensors and lists are not hashable)."""
    try:
        hash(value)
    except TypeError:
        return ("__unhashable__", type(value).__name__, repr(value))
    return value


def value_text(value: Any) -> str:
    """A config value as a label shows it: 16384, not 16384.0."""
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
class Series:
    label: str
    index: int  # style index


@dataclass
class Point:
    series: int
    x: int  # index into the x categories
    mean: float
    lower: float
    upper: float
    runs: int


@dataclass
class Panel:
    metric: str
    row: tuple[Hashable, ...]
    col: tuple[Hashable, ...]
    title: str
    points: list[Point] = field(default_factory=list)


@dataclass
class MetricInfo:
    unit: str  # the stored unit
    factor: float  # stored value * factor = displayed value
    shown_unit: str
    baseline: str  # the annotation the values are relative to, or ""
    runs: tuple[int, int]  # (min, max) NumRuns


def _fields_text(names: Sequence[str], values: Sequence[Any]) -> str:
    return ", ".join(f"{n}={value_text(v)}" for n, v in zip(names, values, strict=True))


class _Keys:
    """Each row's grouping key of the fields of a DataFrame, each field's made once: a plan
    groups the rows by the same fields several times, and a sweep has 100,000 rows."""

    def __init__(self, df: pd.DataFrame) -> None:
        self.df = df
        self._columns: dict[str, list[Hashable]] = {}

    def column(self, name: str) -> list[Hashable]:
        if name not in self._columns:
            values = self.df[name].tolist()
            if self.df[name].dtype == object:  # numbers and flags are hashable as they are
                values = [_key(v) for v in values]
            self._columns[name] = values
        return self._columns[name]

    def rows(self, names: Sequence[str]) -> list[tuple[Hashable, ...]]:
        """Each row's key of the fields ``names``."""
        columns = [self.column(n) for n in names]
        return list(zip(*columns, strict=True)) if columns else [()] * len(self.df)

    def combos(self, names: Sequence[str]) -> tuple[list[tuple[Hashable, ...]], dict]:
        """The distinct value combinations of ``names`` in order of first appearance, and the
        original values of each (for labels)."""
        first: dict[tuple[Hashable, ...], int] = {}
        for i, key in enumerate(self.rows(names)):
            first.setdefault(key, i)
        at = list(first.values())
        columns = [self.df[n].iloc[at].tolist() for n in names]
        originals = list(zip(*columns, strict=True)) if columns else [()] * len(at)
        return list(first), dict(zip(first, originals, strict=True))


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
            raise OptionError(
                "metric",
                repr(option),
                f"None (every metric) or one of {valid}",
                message=f"Metric '{m}' not found in the profile results. metric={option!r} is "
                f"not valid; valid: None (every metric) or one of {valid}",
            )
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
class Plan:
    """Everything a figure shows, worked out from the results before anything is drawn."""

    metrics: list[str]
    info: dict[str, MetricInfo]
    series: list[Series]
    x_names: list[str]
    x_fixed: str  # "dtype=fp32": x fields with one value, left out of the tick labels
    x_values: list[tuple[Any, ...]]
    x_numeric: list[float] | None  # x positions when the axis is numeric, else None
    xscale: str  # "category", "log", "linear" or "index" (the config's place, MANY_X)
    many_x: bool  # more x values than MANY_X: lines on a numeric axis of bounded ticks
    rows: list[tuple[str, tuple[Hashable, ...]]]  # (metric, row combo)
    cols: list[tuple[Hashable, ...]]
    panels: dict[tuple[int, int], Panel]
    table: pd.DataFrame  # the plotted rows (print_data)


def _with_ranks(results: ResultsData, o: PlotOptions) -> tuple[list[str], PlotOptions]:
    """The fields a plot may place: the parameters, and ``Rank`` for results of several ranks
    (:func:`kprof.merge`), which get a column of panels per rank unless an option places it."""
    parameters = list(results.parameters)
    if len(results.ranks) < 2:
        return parameters, o
    placed = {*o.row_panels, *o.col_panels, *o.variant_fields, *(o.x_keys or ())}
    if "Rank" not in placed:
        o = dataclasses.replace(o, col_panels=(*o.col_panels, "Rank"))
    return [*parameters, "Rank"], o


def make_plan(results: ResultsData, o: PlotOptions, frame: pd.DataFrame | None = None) -> Plan:
    """Everything the figure of ``results`` with options ``o`` shows; ``frame`` is
    ``results.to_dataframe()`` where the caller has it already (a figure per metric)."""
    df = results.to_dataframe() if frame is None else frame
    parameters, o = _with_ranks(results, o)
    # In order of first appearance (pandas' unique keeps it), as results.metrics lists them.
    metrics = _metrics(o.metric, df["Metric"].unique().tolist())
    annotations = df["Annotation"].unique().tolist()
    _check_names(o, parameters, annotations)
    taken = set(o.row_panels) | set(o.col_panels) | set(o.variant_fields)
    x_names = list(o.x_keys) if o.x_keys is not None else [p for p in parameters if p not in taken]

    df = df[df["Metric"].isin(metrics)].reset_index(drop=True)
    series, series_of_row = _series(df, o, annotations)
    keys = _Keys(df)
    x = _x_axis(df, keys, x_names, o)
    row_keys, row_orig = keys.combos(o.row_panels)
    col_keys, col_orig = keys.combos(o.col_panels)
    rows = [(m, r) for m in metrics for r in (row_keys or [()])]
    cols = col_keys or [()]
    panels: dict[tuple[int, int], Panel] = {}
    for ri, (m, r) in enumerate(rows):
        for ci, c in enumerate(cols):
            lines = [m] if len(metrics) > 1 else []
            if o.row_panels:
                lines.append(_fields_text(o.row_panels, row_orig[r]))
            if o.col_panels:
                lines.append(_fields_text(o.col_panels, col_orig[c]))
            panels[(ri, ci)] = Panel(m, r, c, "\n".join(lines))
    _place_points(df, keys, o, parameters, x, series_of_row, rows, cols, panels)

    shown = ["Annotation", "Metric", *parameters, "AvgValue", "CI95_Lower", "CI95_Upper"]
    shown += ["NumRuns", "Unit"]
    return Plan(
        metrics=metrics,
        info={m: _metric_info(df[df["Metric"] == m]) for m in metrics},
        series=series,
        x_names=x.names,
        x_fixed=x.fixed,
        x_values=x.values,
        x_numeric=x.numeric,
        xscale=x.scale,
        many_x=len(x.values) > MANY_X,
        rows=rows,
        cols=cols,
        panels=panels,
        table=df[[c for c in shown if c in df.columns]],
    )


def _check_names(o: PlotOptions, parameters: Sequence[str], annotations: Sequence[str]) -> None:
    """The fields the options name are parameters, the annotations they name are there."""
    for option, names in (
        ("row_panels", o.row_panels),
        ("col_panels", o.col_panels),
        ("variant_fields", o.variant_fields),
        ("x_keys", o.x_keys or ()),
    ):
        _check_fields(option, names, parameters)
    for a in o.variant_annotations or ():
        if a not in annotations:
            raise OptionError(
                "variant_annotations",
                repr(list(o.variant_annotations or ())),
                "annotations of the results: " + ", ".join(repr(x) for x in annotations),
            )


def _series(
    df: pd.DataFrame, o: PlotOptions, annotations: Sequence[str]
) -> tuple[list[Series], list[int]]:
    """The series, an annotation (and kernel) split by the variant fields where asked, and the
    series of each row. Columns are read as lists: a sweep has 100,000 rows."""
    per_kernel = "KernelIndex" in df.columns
    index_of: dict[str, int] = {}
    series_of_row: list[int] = []
    variants = list(o.variant_fields)
    split = set(annotations if o.variant_annotations is None else o.variant_annotations)
    anns = df["Annotation"].tolist()
    kernels = (
        list(zip(df["KernelIndex"].tolist(), df["Kernel"].tolist(), strict=True))
        if per_kernel
        else []
    )
    variant_values = list(zip(*(df[v].tolist() for v in variants), strict=True)) if variants else []
    short: dict[str, str] = {}
    for i, ann in enumerate(anns):
        label = str(ann)
        if per_kernel:
            index, kernel = kernels[i]
            name = short.get(kernel) or short.setdefault(kernel, _short_kernel(str(kernel)))
            label += f" [{int(index)}: {name}]"
        if variants and ann in split:
            label += " " + _fields_text(variants, variant_values[i])
        series_of_row.append(index_of.setdefault(label, len(index_of)))
    return [Series(label, i) for label, i in index_of.items()], series_of_row


@dataclass
class _XAxis:
    names: list[str]
    fixed: str  # "dtype=fp32": x fields with one value, left out of the tick labels
    keys: list[tuple[Hashable, ...]]
    values: list[tuple[Any, ...]]
    numeric: list[float] | None  # positions when the axis is numeric, else None
    scale: str  # "category", "log", "linear" or "index"


def _x_axis(df: pd.DataFrame, keys: _Keys, x_names: list[str], o: PlotOptions) -> _XAxis:
    """The x categories in sweep order, and the scale. An x field with one value throughout
    goes into the axis label rather than every tick. Past ``MANY_X`` categories the axis is
    numeric: the one numeric x parameter (linear unless ``xscale`` says), or else the config's
    index in sweep order (scale ``"index"``)."""
    varying = [n for n in x_names if len(set(keys.column(n))) > 1]
    fixed = ""
    if varying and len(varying) < len(x_names):
        constant = [n for n in x_names if n not in varying]
        fixed = _fields_text(constant, [df.at[0, n] for n in constant])
        x_names = varying
    combos, orig = keys.combos(x_names)
    values = [orig[k] for k in combos]
    scale = "category"
    single = [v[0] for v in values] if len(x_names) == 1 else []
    if o.xscale == "auto" and o.plot_type == "line" and not o.show_aggregate and _pow2(single):
        scale = "log"
    elif o.xscale in ("log", "linear"):
        if not single or not _numeric(single) or (o.xscale == "log" and min(single) <= 0):
            raise OptionError(
                "xscale",
                repr(o.xscale),
                "'auto' or 'category' unless the x axis is one parameter of "
                + ("positive numbers" if o.xscale == "log" else "numbers")
                + f" (x_keys: {x_names})",
            )
        scale = o.xscale
    if scale == "category" and len(values) > MANY_X:
        scale = "linear" if single and _numeric(single) and o.xscale == "auto" else "index"
    if scale == "index":
        numeric: list[float] | None = [float(i) for i in range(len(values))]
    else:
        numeric = [float(v) for v in single] if scale != "category" else None
    return _XAxis(x_names, fixed, combos, values, numeric, scale)


def _place_points(
    df: pd.DataFrame,
    keys: _Keys,
    o: PlotOptions,
    parameters: Sequence[str],
    x: _XAxis,
    series_of_row: Sequence[int],
    rows: Sequence[tuple[str, tuple[Hashable, ...]]],
    cols: Sequence[tuple[Hashable, ...]],
    panels: dict[tuple[int, int], Panel],
) -> None:
    """Puts each row of ``df`` into its panel as a point; two rows on one point raise."""
    row_index = {key: i for i, key in enumerate(rows)}
    col_index = {key: i for i, key in enumerate(cols)}
    x_index = {key: i for i, key in enumerate(x.keys)}
    seen: dict[tuple[int, int, int, int], int] = {}
    unsplit: dict[str, list[str]] = {}  # annotation -> the variant fields its points share x by
    metric = df["Metric"].tolist()
    row_keys, col_keys, x_keys = (keys.rows(n) for n in (o.row_panels, o.col_panels, x.names))
    means, lowers, uppers = (df[c].tolist() for c in ("AvgValue", "CI95_Lower", "CI95_Upper"))
    runs = df["NumRuns"].tolist()
    for i, m in enumerate(metric):
        ri, ci, s = row_index[(m, row_keys[i])], col_index[col_keys[i]], series_of_row[i]
        xi = x_index[x_keys[i]]
        where = (ri, ci, s, xi)
        if where in seen:
            differ = _differing(df, seen[where], i, parameters)
            if not (differ and all(p in o.variant_fields for p in differ)):
                _collision(df, i, differ, o, x.names)
            unsplit.setdefault(str(df.at[i, "Annotation"]), differ)
        seen[where] = i
        panels[(ri, ci)].points.append(
            Point(
                series=s,
                x=xi,
                mean=float(means[i]),
                lower=float(lowers[i]),
                upper=float(uppers[i]),
                runs=int(runs[i]),
            )
        )
    for ann, differ in unsplit.items():
        _warn_unsplit(ann, differ)


def _differing(df: pd.DataFrame, j: int, i: int, parameters: Sequence[str]) -> list[str]:
    return [p for p in parameters if _key(df.at[i, p]) != _key(df.at[j, p])]


def _warn_unsplit(ann: str, differ: Sequence[str]) -> None:
    """An annotation left out of variant_annotations whose configs differ only in variant
    fields: drawn as nsight-python draws it, several points at one x, and said."""
    fields = ", ".join(repr(p) for p in differ)
    warnings.warn(
        f"annotation {ann!r} is not in variant_annotations, and its configs differ only in "
        f"variant field{'s' if len(differ) > 1 else ''} {fields}: it is drawn with several "
        "points at each x; list it in variant_annotations for one series per variant",
        UserWarning,
        stacklevel=_user_stacklevel(),
    )


def _user_stacklevel() -> int:
    """warnings.warn's stacklevel, from its caller here, of the first frame outside kprof."""
    package = os.path.dirname(os.path.abspath(__file__))
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _collision(
    df: pd.DataFrame, i: int, differ: Sequence[str], o: PlotOptions, x_names: list[str]
) -> None:
    """Row ``i`` would be drawn at the point of an earlier row, from which it differs in the
    parameters ``differ``: says which option to change."""
    ann = df.at[i, "Annotation"]
    raise OptionError(
        "x_keys",
        repr(list(o.x_keys) if o.x_keys is not None else x_names),
        "keys that tell the configs apart: add "
        + ", ".join(repr(p) for p in differ)
        + f" to x_keys, variant_fields, row_panels or col_panels (configs of {ann!r} differ "
        "in it and would fall on one point)",
    )


def _metric_info(rows: pd.DataFrame) -> MetricInfo:
    units = [u for u in rows["Unit"].tolist() if isinstance(u, str) and u]
    unit = units[0] if units else ""
    finite = [abs(v) for v in rows["AvgValue"].tolist() if math.isfinite(v)]
    factor, shown = _core._display_unit(max(finite) if finite else math.nan, unit)
    baselines = [b for b in rows["Normalized"].tolist() if isinstance(b, str) and b]
    runs = [int(n) for n in rows["NumRuns"].tolist()]
    return MetricInfo(
        unit=unit,
        factor=float(factor),
        shown_unit=str(shown),
        baseline=baselines[0] if baselines else "",
        runs=(min(runs), max(runs)) if runs else (0, 0),
    )
