# SPDX-License-Identifier: Apache-2.0
"""The first section of the HTML report (:mod:`kprof.report`): what limits each region, for
results that measured ``set:analysis``.

The table shows the columns of :meth:`kprof.ProfileResults.analysis` as the core computed them;
whether the results hold the analysis at all is the core's answer too (``analysis()`` raises
:class:`kprof.errors.OptionError` otherwise), so no list of metrics is kept here.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from kprof._native import core as _core
from kprof._plot_plan import value_text
from kprof._report_tables import TABLE_MAX_ROWS
from kprof.errors import OptionError
from kprof.roofline import draw_roofline

__all__ = ["analysis_frame", "analysis_section"]

# The table's columns after the annotation and the parameters are the verdict and then those
# of `kprof report --explain` (the core's headings and cells); each region's advice is a row
# of its own under them, as wide as the table, so that it is read whole at any width instead of
# being squeezed into (or scrolled out of) a last column.


@functools.cache
def _headings() -> tuple[tuple[str, bool], ...]:
    """The core's columns of the analysis after the region: (heading, numeric)."""
    return tuple(_core.analysis_headings())


@functools.cache
def _fields() -> dict[str, str]:
    """The analysis frame's column names and the fields of the core's analysis they hold."""
    return {
        name: field
        for name, _, source, field, *_ in _core.result_layout()["analysis"]
        if source == "item"
    }


def analysis_frame(results: Any) -> pd.DataFrame | None:
    """``results.analysis()``, or None when the results lack the metrics of set:analysis (or
    were normalized): the core decides, through the ``OptionError`` it raises."""
    try:
        return results.analysis()
    except OptionError:
        return None


def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _annotation_cell(row: Mapping[str, Any]) -> str:
    """The annotation, its kernel index per kernel, and the kernel's full name on hover."""
    e = html.escape
    text = _text(row["Annotation"])
    index = row.get("KernelIndex")
    if index is not None and pd.notna(index):
        text += f" [{int(index)}]"
    return f'<td title="{e(_text(row["Kernel"]))}">{e(text)}</td>'


def _row_html(row: Mapping[str, Any], parameters: Sequence[str], span: int) -> str:
    """One region: a line of numbers, the verdict first, and the advice under it."""
    e = html.escape
    cells = [_annotation_cell(row)]
    cells += [f"<td>{e(value_text(row[p]))}</td>" for p in parameters]
    cells += [f'<td class="verdict">{e(_text(row["Verdict"]))}</td>']
    fields = _fields()
    shown = _core.analysis_cells({fields[k]: v for k, v in row.items() if k in fields})
    for (_, numeric), text in zip(_headings(), shown, strict=True):
        cells.append(f'<td class="num">{e(text)}</td>' if numeric else f"<td>{e(text)}</td>")
    advice = _text(row["Advice"])
    lines = ['<tbody class="region"><tr class="numbers">' + "".join(cells) + "</tr>"]
    if advice:
        lines.append(
            f'<tr class="advice"><td colspan="{span}"><div><b>Advice:</b> {e(advice)}</div>'
            "</td></tr>"
        )
    return "".join(lines) + "</tbody>"


def _table(frame: pd.DataFrame, parameters: Sequence[str]) -> str:
    e = html.escape
    heads = ["Annotation", *parameters, "Verdict", *(h for h, _ in _headings())]
    parts = ['<table class="analysis"><thead><tr>']
    parts += [f"<th>{e(h)}</th>" for h in heads]
    parts.append("</tr></thead>")
    parts += [_row_html(row, parameters, len(heads)) for row in frame.to_dict("records")]
    parts.append("</table>")
    return "".join(parts)


def _roofline_figure(frame: pd.DataFrame, png: Callable[[Any], str]) -> str:
    """The roofline as an embedded PNG; empty when no region has a place on it."""
    try:
        fig = draw_roofline(frame, title="")
    except OptionError:  # no region with both FLOP and DRAM bytes: the table says enough
        return ""
    alt = "Roofline: each region's TFLOP/s against its FLOP per DRAM byte, under its roofs"
    return (
        f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{png(fig)}">'
        "<figcaption>Roofline</figcaption></figure>"
    )


def _more_regions_note(regions: int, roofline: bool) -> str:
    """What the section leaves out of the analysis of a sweep, and where it is."""
    text = (
        f"{regions:,} regions: the first {TABLE_MAX_ROWS}, in sweep order, are shown; "
        "<code>results.analysis()</code> has them all, and <code>kprof report FILE "
        "--explain</code> prints them."
    )
    if roofline:
        text += (
            " Their roofline, a labelled point per region, is left out: "
            "<code>results.plot_roofline(PATH)</code> draws it."
        )
    return f'<p class="note">{text}</p>'


def analysis_section(results: Any, *, png: Callable[[Any], str] | None = None) -> str:
    """The report's "What limits each region" section, which the page shows first: a line per
    region (annotation and config, and kernel per kernel) with its parameters, Nsight
    Compute's verdict, then the columns of ``kprof report --explain`` (the bound, SM, memory
    and DRAM throughput, the busiest unit, achieved and theoretical occupancy, waves per SM,
    FLOP per DRAM byte and TFLOP/s), and the advice on a row of its own under it; then the
    roofline when ``png`` (a function that turns a Figure into base64 PNG) is given.

    Returns an empty string when the results lack the metrics of set:analysis, so the page
    shows the section only where it has something to say. Of a sweep of more than
    ``TABLE_MAX_ROWS`` regions, the first are shown and the roofline is left out, as a note
    says. Text is HTML-escaped.
    """
    frame = analysis_frame(results)
    if frame is None:
        return ""
    parameters = list(results.parameters)
    out = ['<section id="analysis"><h2>What limits each region</h2>']
    out.append(
        '<p class="note">The Speed-of-Light verdict of Nsight Compute\'s rule on the same '
        "counters (SM and memory throughput in % of peak), the busiest unit, occupancy, "
        "the place on the roofline, and advice (means over the runs).</p>"
    )
    out.append(f'<div class="scroll">{_table(frame.head(TABLE_MAX_ROWS), parameters)}</div>')
    if len(frame) > TABLE_MAX_ROWS:  # a sweep: the page stays one a person reads
        out.append(_more_regions_note(len(frame), png is not None))
    elif png is not None:
        out.append(_roofline_figure(frame, png))
    out.append("</section>")
    return "\n".join(part for part in out if part)
