# SPDX-License-Identifier: Apache-2.0
"""``kprof.analyze.plot``: the decorator that draws the results of a profile into a picture file
every time the decorated function runs (nsight-python's ``nsight.analyze.plot``)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from kprof.errors import KprofError, OptionError
from kprof.results import ProfileResults
from kprof.verbosity import VerbosityLevel

__all__ = ["plot"]


def plot(
    filename: str | os.PathLike[str] | None = "plot.png",
    metric: str | Sequence[str] | None = None,
    *,
    title: str | None = None,
    ylabel: str | Mapping[str, str] | None = None,
    annotate_points: bool = False,
    show_aggregate: Literal["avg", "geomean"] | None = None,
    plot_type: Literal["line", "bar"] = "line",
    plot_width: float = 6,
    plot_height: float = 4,
    row_panels: str | Sequence[str] | None = None,
    col_panels: str | Sequence[str] | None = None,
    x_keys: str | Sequence[str] | None = None,
    print_data: bool = False,
    variant_fields: str | Sequence[str] | None = None,
    variant_annotations: str | Sequence[str] | None = None,
    plot_callback: Callable[[Any], Any] | None = None,
    error_bars: bool = True,
    xscale: Literal["auto", "category", "log", "linear"] = "auto",
    yscale: Literal["linear", "log"] = "linear",
) -> Any:
    """Draws the results of a profile into a picture file, every time the function runs.

    Placed on top of :func:`kernel`, with nsight-python's parameters::

        @kprof.analyze.plot("matmul.png", annotate_points=True)
        @kprof.analyze.kernel(configs=[(512,), (1024,), (2048,), (4096,)], runs=20)
        def matmul(n):
            ...

        results = matmul()   # profiles, writes matmul.png, returns the ProfileResults

    It also works bare (``@kprof.analyze.plot``, writing ``plot.png``). The decorated function
    still returns the :class:`kprof.ProfileResults`; the figure is written, then closed. To
    get the figure itself, use :meth:`kprof.ProfileResults.plot`, which takes the same options
    and returns the matplotlib ``Figure``; :func:`kprof.plot_file` plots a saved file.

    What is drawn. Each panel has one **series** per annotation (per annotation and kernel
    for ``per_kernel=True`` results), drawn as a line with markers or as grouped bars, with
    the **mean** of the runs (``AvgValue``) against the **x axis**: by default one tick per
    combination of the parameters that no other option uses, in sweep order. **Error bars**
    show the 95% confidence interval of the mean (``CI95_Lower``/``CI95_Upper``, Student-t);
    with one run there is no interval and no bar. Values are shown in a readable unit chosen
    per metric by the same rule as the text table (2.68e6 ns reads 2.68 ms). The figure's
    title is followed by where it was measured (GPU, host, backend, cache control, date) and
    the number of runs. One legend, titled "Annotation", lists every series.

    Where kprof goes beyond nsight-python:

    - **Several metrics** in one figure, one row of panels each: ``metric=None`` draws every
      metric of the results (nsight-python raises when there are several), and ``metric``
      may be a list. Many metrics go several to a row, in a figure of at most 20 x 16
      inches; those that do not fit are named under it.
    - **Any number of series.** nsight-python has 14 colours and silently drops the 15th
      annotation; kprof cycles its palette, then changes the marker (and bar hatch), then the
      line style, so every series stays distinct and in the legend.
    - **Error bars** from the 95% interval, and a log2 x axis when the x axis is a single
      numeric parameter of powers of two (``xscale="auto"``), so 512, 1024, 4096 sit at
      their true distances.
    - **Checked options**: everything that can be checked before the profile is checked when
      the decorator is built (the choices, the sizes, fields used twice, field names against
      the function's parameters, matplotlib being installed); an unknown ``metric`` is
      checked when the results exist. Each raises :class:`kprof.errors.OptionError` naming the
      option, the value and what is valid; after a profile, the error carries the results as
      ``partial_results``, so nothing measured is lost.

    Args:
        filename: The picture to write; the extension picks the format (``.png``, ``.svg``,
            ``.pdf``... any matplotlib writes; none: png), checked when the decorator is
            built. Missing folders are created and the file is replaced atomically. ``None``
            writes nothing (for ``plot_callback``).
        metric: The metric to draw, a list of metrics, or ``None`` for every metric of the
            results (measured and derived), each in its own row of panels.
        title: The figure's title; by default the function's name.
        ylabel: The y axis label, for every metric, or a dict ``metric -> label``. By default
            the metric's name, ``"relative to <annotation>"`` when normalized, and the unit.
        annotate_points: Write each mean next to its point (4 significant digits).
        show_aggregate: ``"avg"`` or ``"geomean"``: one more tick after a dashed line with
            each series' mean (or geometric mean) of the values in that panel, computed by the
            core. ``None`` (default) draws none.
        plot_type: ``"line"`` (default) or ``"bar"`` (grouped bars).
        plot_width: Width of one panel, inches.
        plot_height: Height of one panel, inches.
        row_panels: Parameters whose values split the figure into rows of panels (one row
            per combination; with several metrics, per metric and combination).
        col_panels: Parameters whose values split the figure into columns of panels.
        x_keys: Parameters on the x axis. By default every parameter not used by
            ``row_panels``, ``col_panels`` or ``variant_fields``. Every config must be told
            apart within a panel and series: a parameter left out of all four options that
            takes several values raises :class:`kprof.errors.OptionError`. A parameter with
            one value throughout is shown in the axis label instead of on every tick.
        print_data: Print the rows that are drawn (annotation, metric, parameters, mean,
            interval, runs, unit).
        variant_fields: Parameters whose values split a series into several: series
            ``"<annotation> field=value"`` per combination.
        variant_annotations: The annotations that ``variant_fields`` splits; by default all.
        plot_callback: Called with the matplotlib ``Figure`` before it is written, to change
            anything (limits, labels, an extra line).
        error_bars: kprof only. Draw the 95% interval (default True).
        xscale: kprof only. ``"auto"`` (log2 for one numeric parameter of at least three
            powers of two in a line plot, else categories), ``"category"`` (evenly spaced
            ticks, nsight-python's), ``"log"`` or ``"linear"`` (one numeric parameter on a
            numeric axis; line plots without ``show_aggregate``).
        yscale: kprof only. ``"linear"`` (default; from 0 when all values are positive) or
            ``"log"`` for sweeps whose values span orders of magnitude.

    Returns:
        A decorator; the decorated function returns the :class:`kprof.ProfileResults` of the
        function under it.

    Raises:
        kprof.errors.OptionError: An option is invalid (when the decorator is built, or for
            ``metric`` after the profile, with ``partial_results``): a value that is no
            choice, a ``filename`` ending matplotlib cannot write, a yes/no option that is
            not a bool (``error_bars="no"``).
        ImportError: matplotlib is not installed (``pip install 'kprof[plot]'``), when the
            decorator is built.
        TypeError: The function under it does not return ProfileResults (``plot`` must be
            placed above ``kernel``), an unknown keyword, or an option of the wrong type
            (naming it and the type given).
    """
    from kprof.visualization import PlotOptions, picture_format, require_matplotlib

    bare = callable(filename) and not isinstance(filename, (str, os.PathLike))
    options = PlotOptions.make(
        metric=metric,
        title=title,
        ylabel=ylabel,
        annotate_points=annotate_points,
        show_aggregate=show_aggregate,
        plot_type=plot_type,
        plot_width=plot_width,
        plot_height=plot_height,
        row_panels=row_panels,
        col_panels=col_panels,
        x_keys=x_keys,
        print_data=print_data,
        variant_fields=variant_fields,
        variant_annotations=variant_annotations,
        plot_callback=plot_callback,
        error_bars=error_bars,
        xscale=xscale,
        yscale=yscale,
    )
    path = "plot.png" if bare else filename
    require_matplotlib()
    picture_format(path)

    def decorator(func: Callable[..., Any]) -> Callable[..., ProfileResults]:
        profiler = getattr(func, "_kprof_profiler", None)
        if profiler is not None and not profiler.params.var_keyword:
            _check_fields(profiler.params, options)
        return _drawing(func, profiler, path, options)

    if bare:
        return decorator(filename)  # type: ignore[arg-type]
    return decorator


def _check_fields(params: Any, options: Any) -> None:
    """The fields the plot options name are parameters of the function under it."""
    names = params.names
    for option, fields in (
        ("row_panels", options.row_panels),
        ("col_panels", options.col_panels),
        ("variant_fields", options.variant_fields),
        ("x_keys", options.x_keys or ()),
    ):
        for field in fields:
            if field not in names:
                raise OptionError(
                    option,
                    repr(list(fields)),
                    f"parameters of {params.name}: "
                    + (", ".join(repr(n) for n in names) or "none"),
                )


def _drawing(
    func: Callable[..., Any], profiler: Any, path: Any, options: Any
) -> Callable[..., ProfileResults]:
    """``func``, drawing its results into ``path`` after every call."""
    from kprof.visualization import plot_results

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> ProfileResults:
        results = func(*args, **kwargs)
        if not isinstance(results, ProfileResults):
            raise TypeError(
                "kprof.analyze.plot must be placed above kprof.analyze.kernel: "
                f"{getattr(func, '__name__', func)!r} returned {type(results).__name__}, "
                "not ProfileResults"
            )
        try:
            plot_results(
                results, path, checked=options, default_title=getattr(func, "__name__", "")
            )
        except KprofError as e:
            if e.partial_results is None:
                e.partial_results = results
            raise
        if path is not None and profiler is not None:
            if profiler.settings.verbosity >= VerbosityLevel.INFO:
                print(f"[kprof] wrote {os.fspath(path)}", flush=True)
        return results

    wrapper._kprof_profiler = profiler  # type: ignore[attr-defined]
    return wrapper
