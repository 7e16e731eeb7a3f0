# SPDX-License-Identifier: Apache-2.0
"""The tables of the HTML report (:mod:`kprof.report`) and of the notebook view: the results
table of each metric, the per-run values, and, for a sweep too large to read row by row, the
summary a person reads instead.

A metric of more than ``TABLE_MAX_ROWS`` rows (an autotuning sweep of 100,000 configs) is shown
as its ``SUMMARY_ROWS`` highest means (slowest, for a duration), lowest means and highest RSD%
(least stable), and the page says so at the top and where the whole table is. Every number in
a cell is the core's (``table_cells``, the text table's); only which rows are shown is chosen
here, by the core's means and RSD%.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kprof._native import core as _core
from kprof._results_data import ResultsData

__all__ = [
    "TABLE_MAX_ROWS",
    "SUMMARY_ROWS",
    "SAMPLES_MAX",
    "Rows",
    "row_cells",
    "table",
    "metric_tables",
    "samples_table",
]

# A metric's table of more rows than this is summarized: more than a person reads, and more
# than a browser lays out quickly (100,000 rows are 40 MB of HTML).
TABLE_MAX_ROWS = 200
# The rows of each part of a summary: highest means, lowest means, highest RSD%.
SUMMARY_ROWS = 20
# The per-run values the page lists at most.
SAMPLES_MAX = 5000
# Units of a duration, whose highest mean is the slowest row (the core's short units).
_DURATIONS = frozenset({"ns", "us", "ms", "s"})


@dataclass
class Rows:
    """The core's rows and table cells, fetched once per page: each call copies every row."""

    columns: dict[str, list[Any]]  # rows_columns()
    cells: dict[str, Any]  # table_cells(): header, numeric, rows

    @classmethod
    def of(cls, results: ResultsData) -> Rows:
        return cls(results.core.rows_columns(), results.core.table_cells())

    def __len__(self) -> int:
        return len(self.columns["annotation"])


def regions_shown(count: int, accessor: str) -> str:
    """The note under a section of a table per region that shows at most ``TABLE_MAX_ROWS``:
    how many there are and which call holds them all; empty when all are shown."""
    if count <= TABLE_MAX_ROWS:
        return ""
    return (
        f'<p class="note">{count:,} regions: the first {TABLE_MAX_ROWS} are shown; '
        f"<code>{accessor}</code> holds them all.</p>"
    )


def _num(value: Any, factor: float = 1.0) -> str:
    """A number as the text table prints it: 4 significant digits, ``-`` when missing."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "-"
    return str(_core._format_number(v * factor if math.isfinite(v) else v))


def row_cells(rows: Rows, indices: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Per row of ``indices`` (all rows by default): what its HTML lines need besides the
    core's cells (the unit and factor of the row, for its per-run values; its baseline and
    stability)."""
    c = rows.columns
    out = []
    for i in range(len(rows)) if indices is None else indices:
        unit = c["unit"][i] or ""
        factor, shown = _core._display_unit(float(c["mean"][i]), unit)
        out.append(
            {
                "index": i,
                "annotation": c["annotation"][i],
                "config": c["config"][i],
                "metric": c["metric"][i],
                "kernel": c["kernel"][i],
                "kernel_index": c["kernel_index"][i],
                "unit": shown,
                "factor": factor,
                "unstable": c["stable"][i] is False,
                "baseline": c["normalized_against"][i],
            }
        )
    return out


def _cell(column: str, text: str, numeric: bool, row: Mapping[str, Any]) -> str:
    """One cell of the results table."""
    e = html.escape
    if column == "Kernel":
        return f'<td class="kernel" title="{e(row["kernel"])}">{e(text)}</td>'
    if column == "RSD%" and row["unstable"]:
        return (
            '<td class="num unstable" title="relative std-dev of 2% or more: not a '
            f'stable measurement">{e(text)}</td>'
        )
    return f'<td class="num">{e(text)}</td>' if numeric else f"<td>{e(text)}</td>"


def table(
    rows: Rows,
    cells: Sequence[Mapping[str, Any]],
    *,
    with_metric: bool,
    caption: str = "",
    more: int = 0,
) -> str:
    """The rows of ``cells`` as the text table shows them (the core's cells), in HTML: the
    kernel's full name on hover, an unstable RSD marked; ``more`` rows left out are said."""
    e = html.escape
    header = rows.cells["header"]
    shown_columns = [i for i, h in enumerate(header) if with_metric or h != "Metric"]
    parts = ['<table class="results">']
    if caption:
        parts.append(f"<caption>{e(caption)}</caption>")
    heads = "".join(f"<th>{e(header[i])}</th>" for i in shown_columns)
    parts.append(f"<thead><tr>{heads}</tr></thead>")
    parts.append("<tbody>")
    numeric = rows.cells["numeric"]
    for c in cells:
        row = rows.cells["rows"][c["index"]]
        tds = [_cell(header[i], row[i], numeric[i], c) for i in shown_columns]
        parts.append("<tr>" + "".join(tds) + "</tr>")
    parts.append("</tbody></table>")
    if more > 0:
        parts.append(
            f'<p class="note">{more} more rows; <code>to_dataframe()</code> has them all.</p>'
        )
    return "".join(parts)


# --- summaries of large tables -------------------------------------------------------------


def _words(unit: str) -> tuple[str, str]:
    """How the highest and lowest means of a metric in ``unit`` are called."""
    return ("slowest", "fastest") if unit in _DURATIONS else ("highest", "lowest")


def _summary_parts(rows: Rows, indices: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """(what, row indices) of each part of a metric's summary: its highest means, lowest means
    and highest RSD%, ``SUMMARY_ROWS`` each, ties in sweep order, rows without the number
    left out."""
    mean = np.asarray(rows.columns["mean"], dtype=float)[indices]
    rsd = np.asarray(rows.columns["rel_stddev_pct"], dtype=float)[indices]
    high, low = _words(rows.columns["unit"][int(indices[0])] or "")
    n = SUMMARY_ROWS

    def first(keys: np.ndarray) -> np.ndarray:
        order = np.argsort(keys, kind="stable")  # NaN last
        return indices[order[np.isfinite(keys[order])][:n]]

    parts = [(high, first(-mean)), (low, first(mean)), ("least stable", first(-rsd))]
    return [(what, chosen) for what, chosen in parts if len(chosen)]


def _metric_summary(rows: Rows, metric: str, indices: np.ndarray) -> str:
    """The tables of one metric too long to show whole."""
    out = []
    for what, chosen in _summary_parts(rows, indices):
        by = " (highest RSD%)" if what == "least stable" else " (mean)"
        caption = f"{metric}: the {len(chosen)} {what} of {len(indices):,} rows{by}"
        out.append(_scrolled(rows, row_cells(rows, chosen.tolist()), caption))
    return "\n".join(out)


def _scrolled(rows: Rows, cells: Sequence[Mapping[str, Any]], caption: str) -> str:
    """A metric's table, scrolled sideways where the page is narrower."""
    return f'<div class="scroll">{table(rows, cells, with_metric=False, caption=caption)}</div>'


def metric_tables(rows: Rows, metrics: Sequence[str]) -> tuple[list[str], dict[str, int]]:
    """The results tables of ``metrics``, each whole or, past ``TABLE_MAX_ROWS`` rows,
    summarized; and the number of rows of each metric (for :func:`size_note`)."""
    by_metric: dict[str, list[int]] = {m: [] for m in metrics}
    for i, m in enumerate(rows.columns["metric"]):
        if m in by_metric:
            by_metric[m].append(i)
    out = []
    for m, indices in by_metric.items():
        if len(indices) > TABLE_MAX_ROWS:
            out.append(_metric_summary(rows, m, np.asarray(indices)))
        elif indices:
            out.append(_scrolled(rows, row_cells(rows, indices), m))
    return out, {m: len(indices) for m, indices in by_metric.items()}


def size_note(rows: Rows, sizes: Mapping[str, int], source: str | None) -> str:
    """What the page shows of the metrics of ``sizes`` (their number of rows) when one of them
    is summarized, and where the rest is, said at its top (HTML); empty when every table is
    whole."""
    summarized = [m for m, n in sizes.items() if n > TABLE_MAX_ROWS]
    if not summarized:
        return ""
    e = html.escape
    kinds = {_words(_first_unit(rows, m)) for m in summarized}
    n = SUMMARY_ROWS
    if kinds == {("slowest", "fastest")}:
        what = f"the {n} slowest, {n} fastest"
    elif len(kinds) == 1:
        what = f"the {n} highest, {n} lowest (by mean)"
    else:
        what = f"the {n} highest (slowest, for durations), {n} lowest (fastest)"
    what += f" and {n} least stable (highest RSD%)"
    total = sum(sizes.values())
    if len(sizes) == 1:
        head = f"{total:,} rows: showing {what}"
    else:
        head = (
            f"{total:,} rows in {len(sizes)} metrics: each metric of more than "
            f"{TABLE_MAX_ROWS} rows shows {what}"
        )
    if source:
        where = (
            f'<code>kprof.load("{e(source)}").to_dataframe()</code> in Python, or the text '
            f"that <code>kprof report {e(source)}</code> prints (without --html)"
        )
    else:
        where = (
            "<code>results.to_dataframe()</code> in Python, or the text that <code>kprof report "
            "FILE</code> prints (without --html)"
        )
    return f"{e(head)}; the full table is {where}."


def _first_unit(rows: Rows, metric: str) -> str:
    return rows.columns["unit"][rows.columns["metric"].index(metric)] or ""


# --- per-run values ------------------------------------------------------------------------


def samples_table(results: ResultsData, rows: Rows) -> str:
    """The first ``SAMPLES_MAX`` per-run values, each in its row's unit."""
    e = html.escape
    s = results.core.samples_columns()
    c = rows.columns
    n = len(s["annotation"])
    shown = min(n, SAMPLES_MAX)
    fields = ("config", "annotation", "metric", "kernel_index")
    wanted = set(zip(*(s[f][:shown] for f in fields), strict=True))
    row_of = {}  # the row of each value shown, found without a dict of every row
    for i, key in enumerate(zip(*(c[f] for f in fields), strict=True)):
        if key in wanted:
            row_of[key] = i
    units: dict[int, tuple[float, str]] = {}
    configs = results.configs
    head = ["Annotation", *results.parameters, "Metric", "Run", "Value", "Unit"]
    parts = [
        '<table class="samples"><thead><tr>'
        + "".join(f"<th>{e(h)}</th>" for h in head)
        + "</tr></thead><tbody>"
    ]
    for i in range(shown):
        key = (s["config"][i], s["annotation"][i], s["metric"][i], s["kernel_index"][i])
        row = row_of.get(key)
        if row is None:
            f, unit = 1.0, s["unit"][i] or ""
        else:
            if row not in units:
                cell = row_cells(rows, [row])[0]
                units[row] = (cell["factor"], cell["unit"])
            f, unit = units[row]
        params = "".join(f"<td>{e(str(v))}</td>" for v in configs[s["config"][i]])
        ann = s["annotation"][i]
        if s["kernel_index"][i] >= 0:
            ann += f" [{s['kernel_index'][i]}]"
        parts.append(
            f"<tr><td>{e(ann)}</td>{params}<td>{e(s['metric'][i])}</td>"
            f'<td class="num">{s["run"][i]}</td><td class="num">{e(_num(s["value"][i], f))}</td>'
            f"<td>{e(unit)}</td></tr>"
        )
    parts.append("</tbody></table>")
    if n > SAMPLES_MAX:
        parts.append(
            f'<p class="note">{n - SAMPLES_MAX:,} more values; '
            "<code>raw_dataframe()</code> has them all.</p>"
        )
    return "".join(parts)
