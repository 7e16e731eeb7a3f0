# SPDX-License-Identifier: Apache-2.0
"""A section of the HTML report (:mod:`kprof.report`): where each region's warps waited, for
results that sampled warps (``set:source``).

Per region, its hottest instructions as :meth:`kprof.ProfileResults.source_dataframe` lists
them (the core's shares; those of ``_core.STALL_SHOWN_PCT`` of the region's samples or more, as
``kprof report --source`` shows them), each with a bar, the reason most of its samples had, its
file and line (or its offset) and SASS, and the line's text where the source file can be read
here.
"""

from __future__ import annotations

import html
import os
from typing import Any

from kprof._native import core as _core
from kprof._report_tables import TABLE_MAX_ROWS, regions_shown
from kprof.errors import OptionError

__all__ = ["source_section", "PER_REGION"]

#: Instructions shown per region, as ``kprof report --source`` shows them.
PER_REGION = 10


def _place(row: dict[str, Any]) -> str:
    if row["Line"] and row["File"]:
        return f"{os.path.basename(str(row['File']))}:{int(row['Line'])}"
    return f"+0x{int(row['PcOffset']):x}"


def _instruction_row(row: dict[str, Any], text: str) -> str:
    e = html.escape
    share = float(row["SharePct"])
    width = f"{max(0.0, min(share, 100.0)):.1f}%"
    return (
        f'<tr><td class="num">{e(str(_core._format_number(share, 3)))}%</td>'
        f'<td class="barcell"><div class="bar" style="width:{width}"></div></td>'
        f"<td>{e(str(row['TopReason']))}</td>"
        f'<td title="{e(str(row["File"] or ""))}">{e(_place(row))}</td>'
        f"<td><code>{e(str(row['Sass'] or ''))}</code></td>"
        f"<td><code>{e(text)}</code></td></tr>"
    )


def source_section(results: Any) -> str:
    """The report's "Where the warps waited" section: per region (at most ``TABLE_MAX_ROWS``),
    its ``PER_REGION`` hottest instructions. Empty for results without sampled instructions.
    Text is HTML-escaped."""
    try:
        items = results._core.instruction_columns()
    except OptionError:
        return ""
    # The instructions' shares without source_dataframe()'s reason columns, which are not shown.
    frame = results._frame("instructions", items)
    shown = float(_core.STALL_SHOWN_PCT)
    # Regions by annotation and config: merged ranks' regions share their names.
    merged = len(results.ranks) > 1
    regions: dict[tuple[str, int], list[dict[str, Any]]] = {}
    names: dict[tuple[str, int], tuple[str, str]] = {}
    for row, config in zip(frame.to_dict("records"), items["config"], strict=True):
        region = (str(row["Annotation"]), int(config))
        lines = regions.setdefault(region, [])
        rank = f" (rank {row['Rank']})" if merged else ""
        names.setdefault(region, (f"{row['Region']}{rank}", str(row["Kernel"])))
        if row["SharePct"] >= shown and len(lines) < PER_REGION:
            lines.append(row)
    items_shown = [(names[region], lines) for region, lines in regions.items() if lines]
    rows = [row for _, lines in items_shown[:TABLE_MAX_ROWS] for row in lines]
    texts = iter(
        _core.source_line_texts(
            [str(r["File"] or "") for r in rows], [int(r["Line"]) for r in rows]
        )
    )
    parts = ['<section id="source"><h2>Where the warps waited</h2>']
    parts.append(
        "<p class=\"note\">Each region's most sampled instructions: their share of the region's "
        "warp samples, the stall reason most of them had, their source line (code built with "
        "-lineinfo; other kernels show their offset) and SASS (docs/source.md).</p>"
    )
    parts.append('<div class="scroll"><table class="stalls source">')
    for (name, kernel), lines in items_shown[:TABLE_MAX_ROWS]:
        parts.append(
            f'<tbody class="region"><tr><th colspan="6" title="{html.escape(kernel)}">'
            f"{html.escape(name)}</th></tr>"
            + "".join(_instruction_row(r, str(next(texts))) for r in lines)
        )
        parts.append("</tbody>")
    parts.append("</table></div>")
    if more := regions_shown(len(items_shown), "results.source_dataframe()"):
        parts.append(more)
    parts.append("</section>")
    return "\n".join(parts)
