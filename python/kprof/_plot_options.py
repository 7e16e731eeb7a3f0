# SPDX-License-Identifier: Apache-2.0
"""The options of a plot and the style of its series: what :func:`kprof.analyze.plot`,
:meth:`kprof.ProfileResults.plot` and :func:`kprof.plot_file` accept, checked as far as they can
be without the data, and the colours, markers, line styles and hatches that keep any number of
series apart. matplotlib is needed only to draw (:func:`require_matplotlib`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kprof import _arguments
from kprof.errors import OptionError

__all__ = [
    "PALETTE",
    "MARKERS",
    "LINESTYLES",
    "HATCHES",
    "PlotOptions",
    "SeriesStyle",
    "series_style",
    "require_matplotlib",
    "picture_format",
]

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


def _wrong_type(option: str, value: Any, expected: str) -> TypeError:
    return _arguments.type_error("plot", option, expected, value)


def _names(option: str, value: Any) -> tuple[str, ...]:
    """A field list option: None, one name, or a sequence of names."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return tuple(dict.fromkeys(value))
    raise _wrong_type(option, value, "None, a parameter name, or a list of parameter names")


def _choice(option: str, value: Any, valid: Sequence[Any]) -> None:
    if value is not None and not isinstance(value, str):
        raise _wrong_type(option, value, " or ".join(repr(v) for v in valid))
    if value not in valid:
        raise OptionError(option, repr(value), " or ".join(repr(v) for v in valid))


def _positive(option: str, value: Any) -> float:
    inches = _arguments.number("plot", option, value, valid="a positive number of inches")
    if not math.isfinite(inches) or not inches > 0:
        raise OptionError(option, repr(value), "a positive number of inches")
    return inches


def _metric(value: Any) -> str | tuple[str, ...] | None:
    """The ``metric`` option: None, a name, or a non-empty list of names."""
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, Sequence) or not all(isinstance(m, str) for m in value):
        raise _wrong_type("metric", value, "None (every metric), a metric name, or a list of them")
    if not value:
        raise OptionError(
            "metric", repr(value), "None (every metric), a metric name, or a list of them"
        )
    return tuple(dict.fromkeys(value))


def picture_format(filename: Any) -> str | None:
    """The format of the picture ``filename`` names: its extension (``png`` without one),
    one of those matplotlib writes; ``None`` for no file. Needs matplotlib."""
    if filename is None:
        return None
    path = _arguments.path("plot", "filename", filename)
    ext = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    require_matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    if ext not in formats:
        endings = ", ".join(f".{f}" for f in formats)
        raise OptionError(
            "filename", repr(path), f"a name ending in one of {endings}, or no ending (png)"
        )
    return ext


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
        x_keys = options.get("x_keys")
        variant_annotations = options.get("variant_annotations")
        o = cls(
            metric=_metric(options.get("metric")),
            title=options.get("title"),
            ylabel=options.get("ylabel"),
            annotate_points=_arguments.flag(
                "annotate_points", options.get("annotate_points", False)
            ),
            show_aggregate=options.get("show_aggregate"),
            plot_type=options.get("plot_type", "line"),
            plot_width=options.get("plot_width", 6),
            plot_height=options.get("plot_height", 4),
            row_panels=_names("row_panels", options.get("row_panels")),
            col_panels=_names("col_panels", options.get("col_panels")),
            x_keys=None if x_keys is None else _names("x_keys", x_keys),
            print_data=_arguments.flag("print_data", options.get("print_data", False)),
            variant_fields=_names("variant_fields", options.get("variant_fields")),
            variant_annotations=(
                None
                if variant_annotations is None
                else _names("variant_annotations", variant_annotations)
            ),
            plot_callback=options.get("plot_callback"),
            error_bars=_arguments.flag("error_bars", options.get("error_bars", True)),
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
            raise _wrong_type("title", self.title, "None or a str")
        if self.ylabel is not None and not isinstance(self.ylabel, (str, Mapping)):
            raise _wrong_type("ylabel", self.ylabel, "None, a str, or a dict metric -> str")
        if self.plot_callback is not None and not callable(self.plot_callback):
            raise _wrong_type(
                "plot_callback", self.plot_callback, "None or a function taking the Figure"
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
