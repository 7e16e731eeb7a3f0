# SPDX-License-Identifier: Apache-2.0
"""Where the panels of a figure go and how big it is, so that a profile of 25 metrics reads as
well as one of two: each metric's block of panels (its rows and columns of ``row_panels`` and
``col_panels``) is placed in a grid of blocks, stacked while they fit and side by side when
they would not; panels shrink to keep the figure within ``MAX_WIDTH`` x ``MAX_HEIGHT`` inches,
never below ``MIN_PANEL``; metrics that do not fit even then are left out, and the figure says
which (:func:`left_out_note`). Long metric names are wrapped at their dots and underscores to
the width of their panel (:func:`wrap`), never shortened.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kprof._plot_plan import Plan

__all__ = ["Layout", "layout", "wrap", "left_out_note", "MAX_WIDTH", "MAX_HEIGHT", "MIN_PANEL"]

# The largest figure, in inches: 2200 x 1760 pixels at save_figure's 110 dpi, a screen's worth.
MAX_WIDTH, MAX_HEIGHT = 20.0, 16.0
# The smallest panel whose title, ticks and points still read at that size.
MIN_PANEL = (3.2, 2.4)
# The legend's column right of the panels, the title's lines above them, and the note below
# them when metrics are left out.
LEGEND_WIDTH, HEADER, NOTE = 2.8, 0.9, 0.5
# How many left-out metrics the note names before it counts the rest, and its font size.
_NOTE_NAMES = 4
NOTE_FONTSIZE = 9
# Inches per character of a label at a font size of 1 point (DejaVu Sans runs ~0.6 em).
_CHAR_INCHES = 0.6 / 72


@dataclass(frozen=True)
class Layout:
    """Where each panel of a plan goes, and the sizes."""

    drawn: tuple[str, ...]  # the metrics drawn, in the plan's order
    left_out: tuple[str, ...]  # those that did not fit
    cells: dict[tuple[int, int], tuple[int, int]]  # plan's (row, col) -> grid (row, col)
    nrows: int
    ncols: int
    panel: tuple[float, float]  # inches
    size: tuple[float, float]  # the figure's, inches


def _fit(
    n: int, block: tuple[int, int], panel: tuple[float, float], room: tuple[float, float]
) -> tuple[float, int, tuple[float, float]] | None:
    """The best grid for ``n`` blocks of ``block`` (rows, cols) panels in ``room`` inches:
    (how much of the asked panel size is kept, blocks per grid row, panel size), or None when
    no grid keeps panels at ``MIN_PANEL`` (or the asked size, if smaller). Fewer blocks per
    row win ties, so few metrics stay stacked as they always were."""
    least = (min(MIN_PANEL[0], panel[0]), min(MIN_PANEL[1], panel[1]))
    best = None
    for per_row in range(1, n + 1):
        rows = math.ceil(n / per_row)
        w = min(panel[0], room[0] / (per_row * block[1]))
        h = min(panel[1], room[1] / (rows * block[0]))
        if w < least[0] or h < least[1]:
            continue
        kept = min(w / panel[0], h / panel[1])
        if best is None or kept > best[0] + 1e-9:
            best = (kept, per_row, (w, h))
    return best


def layout(plan: Plan, panel: tuple[float, float]) -> Layout:
    """The grid of ``plan``'s panels, asked ``panel`` (plot_width, plot_height) inches each."""
    metrics = list(plan.metrics)
    block = (max(len(plan.rows) // max(len(metrics), 1), 1), max(len(plan.cols), 1))
    legend = LEGEND_WIDTH if plan.series else 0.0
    found = None
    shown = len(metrics)
    while shown > 0:
        note = NOTE if shown < len(metrics) else 0.0
        room = (MAX_WIDTH - legend, MAX_HEIGHT - HEADER - note)
        found = _fit(shown, block, panel, room)
        if found is not None:
            break
        shown -= 1
    if found is None:  # one metric's block alone is wider or taller than the figure may be
        shown = min(len(metrics), 1)
        least = (min(MIN_PANEL[0], panel[0]), min(MIN_PANEL[1], panel[1]))
        room = (MAX_WIDTH - legend, MAX_HEIGHT - HEADER)
        size = (
            max(least[0], min(panel[0], room[0] / block[1])),
            max(least[1], min(panel[1], room[1] / block[0])),
        )
        found = (0.0, 1, size)
    _, per_row, size = found
    cells = {}
    for ri in range(len(plan.rows)):
        m, r = divmod(ri, block[0])
        if m >= shown:
            continue
        for ci in range(len(plan.cols)):
            cells[(ri, ci)] = ((m // per_row) * block[0] + r, (m % per_row) * block[1] + ci)
    grid = (math.ceil(shown / per_row) * block[0], min(per_row, max(shown, 1)) * block[1])
    left_out = tuple(metrics[shown:])
    figure = (
        grid[1] * size[0] + legend,
        grid[0] * size[1] + HEADER + (NOTE if left_out else 0.0),
    )
    return Layout(tuple(metrics[:shown]), left_out, cells, grid[0], grid[1], size, figure)


def wrap(text: str, inches: float, fontsize: float, breaks: str = "._, ") -> str:
    """``text`` in lines that fit ``inches`` at ``fontsize`` points, broken after one of
    ``breaks``: by default a dot, an underscore, a comma or a space
    (``gpu__compute_memory_throughput.`` / ``avg.pct_of_peak_sustained_elapsed``). A piece
    longer than a line is cut where it must; no character but a space at a break is lost."""
    width = max(int(inches / (fontsize * _CHAR_INCHES)), 8)
    after = re.compile(f"(?<=[{re.escape(breaks)}])")
    lines: list[str] = []
    for line in text.split("\n"):
        current = ""
        for piece in after.split(line):
            while len(piece) > width:  # no break inside it: cut
                if current:
                    lines.append(current)
                    current = ""
                lines.append(piece[:width])
                piece = piece[width:]
            if current and len(current) + len(piece.rstrip()) > width:
                lines.append(current.rstrip())
                current = ""
            current += piece
        lines.append(current.rstrip())
    return "\n".join(lines)


def left_out_note(drawn: Sequence[str], left_out: Sequence[str], inches: float) -> str:
    """The note under a figure ``inches`` wide that could not hold every metric."""
    total = len(drawn) + len(left_out)
    names = ", ".join(left_out[:_NOTE_NAMES])
    if len(left_out) > _NOTE_NAMES:
        names += f" and {len(left_out) - _NOTE_NAMES} more"
    text = (
        f"{len(drawn)} of {total} metrics drawn, as many as fit at a readable size; not drawn: "
        f"{names} (metric=[...] picks the metrics to draw)"
    )
    return wrap(text, inches, NOTE_FONTSIZE, breaks=" ")
