# SPDX-License-Identifier: Apache-2.0
"""A section of the HTML report (:mod:`kprof.report`): why each region's warps waited, for
results that sampled warps (``set:source``).

It shows :meth:`kprof.ProfileResults.stalls` as the core computed it, each reason the core
shows in ``kprof report --stalls`` (``_core.STALL_SHOWN_PCT`` of the region's samples or more)
with a bar as long as its share; whether the results hold samples is the core's answer too
(``stalls()`` raises :class:`kprof.errors.OptionError` otherwise).
"""

from __future__ import annotations

import html
from typing import Any

from kprof._native import core as _core
from kprof._report_tables import TABLE_MAX_ROWS, regions_shown
from kprof.errors import OptionError

__all__ = ["stalls_section"]


def _region_rows(region: str, kernel: str, reasons: list[tuple[str, float]]) -> str:
    """One region: its name on the first line (the kernel's full name on hover), a line per
    reason with its share and its bar."""
    e = html.escape
    lines = []
    for i, (reason, share) in enumerate(reasons):
        head = (
            f'<td rowspan="{len(reasons)}" title="{e(kernel)}">{e(region)}</td>' if i == 0 else ""
        )
        width = f"{max(0.0, min(share, 100.0)):.1f}%"
        lines.append(
            f"<tr>{head}<td>{e(reason)}</td>"
            f'<td class="num">{e(str(_core._format_number(share, 3)))}%</td>'
            f'<td class="barcell"><div class="bar" style="width:{width}"></div></td></tr>'
        )
    return '<tbody class="region">' + "".join(lines) + "</tbody>"


def stalls_section(results: Any) -> str:
    """The report's "Why the warps waited" section: per region (at most ``TABLE_MAX_ROWS``),
    the stall reasons over ``_core.STALL_SHOWN_PCT`` of its warp samples, most first, each with
    its share and a bar. Empty for results without warp samples. Text is HTML-escaped."""
    try:
        frame = results.stalls()
    except OptionError:
        return ""
    shown = float(_core.STALL_SHOWN_PCT)
    regions: dict[str, tuple[str, list[tuple[str, float]]]] = {}
    for row in frame.to_dict("records"):
        entry = regions.setdefault(row["Region"], (str(row["Kernel"]), []))
        if row["SharePct"] >= shown:
            entry[1].append((str(row["Reason"]), float(row["SharePct"])))
    parts = ['<section id="stalls"><h2>Why the warps waited</h2>']
    parts.append(
        '<p class="note">Warp samples of one more call of each config (CUPTI\'s PC sampling, '
        "as Nsight Compute's warp-state sampling): each stall reason's share of the region's "
        "samples, the share of its warps' time spent on it. long_scoreboard is waiting for "
        "global or local memory, barrier for sibling warps at __syncthreads, wait for a "
        "fixed-latency dependency, selected is issuing (docs/source.md).</p>"
    )
    parts.append('<div class="scroll"><table class="stalls"><thead><tr><th>Region</th>')
    parts.append("<th>Reason</th><th>Share</th><th></th></tr></thead>")
    items = [(name, entry) for name, entry in regions.items() if entry[1]]
    for name, (kernel, reasons) in items[:TABLE_MAX_ROWS]:
        parts.append(_region_rows(name, kernel, reasons))
    parts.append("</table></div>")
    if more := regions_shown(len(items), "results.stalls()"):
        parts.append(more)
    parts.append("</section>")
    return "\n".join(parts)
