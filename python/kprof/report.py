# SPDX-License-Identifier: Apache-2.0
"""Results people look at and share: ``kprof report FILE --plot out.png --html out.html
--roofline roofline.png``, one self-contained HTML page (:func:`write_html`), and the notebook
view of :class:`kprof.ProfileResults` (:func:`results_html`).

Every number shown is the core's: the statistics come from the results, and each row is scaled
to a readable unit by the rule the text table uses (``kprof._core._display_unit``, 4
significant digits), so the page and ``results.table()`` read alike. The page needs nothing
but a browser: CSS inline, plots as base64 PNG, no script, no link to anything outside it.
"""

from __future__ import annotations

import argparse
import base64
import datetime as _dt
import html
import io
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kprof import _saving
from kprof._analysis_html import analysis_section
from kprof._files import write_atomic
from kprof._native import core as _core
from kprof._plot_plan import MANY_X
from kprof._report_tables import (
    SAMPLES_MAX,
    Rows,
    metric_tables,
    row_cells,
    samples_table,
    size_note,
    table,
)
from kprof._results_data import ResultsData
from kprof._source_html import source_section
from kprof._stalls_html import stalls_section
from kprof._version import version
from kprof.errors import FormatError, KprofError, OptionError, OutputExistsError
from kprof.roofline import plot_roofline
from kprof.visualization import (
    draw_results,
    picture_format,
    require_matplotlib,
)

# USAGE, the usage line, is read from the extension when asked for (__getattr__).
__all__ = ["main", "write_html", "results_html", "context_rows"]


def _usage() -> str:
    """The usage line, from the command line's one table of options (cli/dispatch.cpp), read
    when needed: importing kprof loads no extension."""
    return "usage: " + _core.command_synopsis("report")


def __getattr__(name: str) -> Any:
    if name == "USAGE":
        return _usage()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
NOTEBOOK_MAX_ROWS = 200

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
margin:2rem auto;max-width:1280px;padding:0 1rem;color:#1a1a1a;line-height:1.4}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;
border-bottom:2px solid #76b900;padding-bottom:.2rem}
.context-line{color:#555;margin-top:0}
table{border-collapse:collapse;margin:.6rem 0 1.2rem;font-size:.85rem}
caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{padding:.25rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
th{background:#f3f5f0;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.kernel{white-space:nowrap;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8rem}
td.unstable{color:#b35c00;font-weight:600}
table.analysis td.verdict{font-weight:600}
table.analysis tr.numbers td{border-bottom:none}
table.analysis tr.advice td{color:#333;padding:0 .5rem .6rem 1.5rem;border-bottom:1px solid #bbb}
table.analysis tr.advice div{position:sticky;left:1.5rem;max-width:calc(100vw - 5rem)}
table.stalls tbody.region td{border-bottom:none}
table.stalls tbody.region{border-bottom:1px solid #bbb}
table.source th{background:none;font-weight:600;padding-top:.6rem}
table.source td.barcell{width:8rem}
td.barcell{width:16rem}.bar{background:#76b900;height:.75rem;margin-top:.2rem}
table.context th{background:none;font-weight:600;white-space:nowrap}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{color:#555;font-size:.85rem}
.note{color:#555;font-size:.85rem}
.scroll{overflow-x:auto}
footer{margin-top:3rem;color:#777;font-size:.8rem}
"""

# The notebook view's rules for the sections of results that sampled warps.
_SAMPLED_NOTEBOOK_CSS = (
    "<style>.kprof-results h2{font-size:1em;margin:.8em 0 .2em}"
    ".kprof-results .note{color:#666;font-size:.85em}"
    ".kprof-results table.source th{font-weight:600;padding-top:.5em;text-align:left}"
    ".kprof-results td.barcell{width:8em}"
    ".kprof-results .bar{background:#76b900;height:.7em;margin-top:.2em}</style>"
)

# The note atop a page too large to show whole; only such pages carry the rule.
_SIZE_CSS = ".size-note{background:#f3f8e6;border-left:4px solid #76b900;padding:.4rem .7rem}\n"

# --- numbers and context ----------------------------------------------------------------------


def context_rows(session: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Where, when and how the results were measured, as (label, text) pairs: the core's
    context rows (``kprof::context_rows``), the facts ``kprof report`` prints first, in its
    order, then every other field the session records, numbers to 4 significant digits."""
    return [(label, text) for label, text, _ in _core.context_rows(dict(session))]


def _context_line(session: Mapping[str, Any]) -> str:
    return str(_core.context_line(dict(session), with_runs=True))


def results_html(results: ResultsData) -> str:
    """An HTML fragment for notebooks: the context line and the results table (numbers as in
    :meth:`kprof.ProfileResults.table`), at most 200 rows; for results that sampled warps
    (``set:source``), then why and where each region's warps waited, as the report shows it."""
    e = html.escape
    rows = Rows.of(results)
    note = results.core.normalization_note()
    style = (
        "<style>.kprof-results table{border-collapse:collapse;font-size:.85em}"
        ".kprof-results th,.kprof-results td{padding:.15em .5em;border-bottom:1px solid #ddd}"
        ".kprof-results td.num{text-align:right;font-variant-numeric:tabular-nums}"
        ".kprof-results td.unstable{color:#b35c00;font-weight:600}"
        ".kprof-results .ctx{color:#666;margin:.2em 0}</style>"
    )
    parts = [f'<div class="kprof-results">{style}']
    parts.append(f'<p class="ctx">{e(_context_line(results.session))}</p>')
    if note:
        parts.append(f'<p class="ctx">{e(note)}</p>')
    if len(rows):
        cells = row_cells(rows, range(min(len(rows), NOTEBOOK_MAX_ROWS)))
        more = len(rows) - len(cells)
        parts.append(table(rows, cells, with_metric=True, more=more))
    else:
        parts.append('<p class="ctx">no rows</p>')
    if sampled := stalls_section(results) + source_section(results):  # set:source only
        parts.append(_SAMPLED_NOTEBOOK_CSS + sampled)
    parts.append("</div>")
    return "".join(parts)


# --- the page -------------------------------------------------------------------------------


def _png_base64(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def render_html(
    results: ResultsData,
    *,
    title: str | None = None,
    plots: bool | None = None,
    metrics: Sequence[str] | None = None,
    source: str | None = None,
    **plot_options: Any,
) -> str:
    """The page :func:`write_html` writes, as a string."""
    e = html.escape
    name = title or (os.path.basename(source) if source else "profile results")
    rows = Rows.of(results)
    chosen = _chosen_metrics(list(dict.fromkeys(rows.columns["metric"])), metrics)
    if plots is None:
        plots = _have_matplotlib()
    tables, sizes = metric_tables(rows, chosen)
    size = size_note(rows, sizes, source)
    if size and plots and _many_configs(results):
        size += (
            f" The plots draw each series as a line over the {len(results.configs):,} configs, "
            "its 95% interval as a band."
        )

    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>kprof report: {e(name)}</title>",
        f"<style>{_CSS}{_SIZE_CSS if size else ''}</style></head><body>",
        f"<header><h1>kprof report: {e(name)}</h1>",
        f'<p class="context-line">{e(_context_line(results.session))}</p>'
        # A sweep too large to show whole: what the page shows instead is said first.
        + (f'\n<p class="size-note">{size}</p>' if size else "")
        + "</header>",
    ]
    # What limits each region comes first: the verdicts and advice are what the page is read for.
    analysis = analysis_section(results, png=_png_base64 if plots else None)
    if analysis:
        out.append(analysis)
    stalls = stalls_section(results)
    if stalls:
        out.append(stalls)
    where = source_section(results)
    if where:
        out.append(where)
    out.append(
        '<section id="context"><h2>Where and how it was measured</h2><table class="context">'
    )
    if source:
        out.append(f"<tr><th>file</th><td>{e(source)}</td></tr>")
    merged = results.core.parts_note()
    if merged:
        out.append(f"<tr><th>merged</th><td>{e(merged)}</td></tr>")
    for label, text in context_rows(results.session):
        out.append(f"<tr><th>{e(label)}</th><td>{e(text)}</td></tr>")
    out.append("</table></section>")

    out.append('<section id="results"><h2>Results</h2>')
    out.append(
        '<p class="note">Mean, median, standard deviation (sample) and 95% interval of the '
        "mean (Student t) over the runs; RSD% is the relative standard deviation (2% or more "
        "is marked). Each row is shown in the unit that reads best for its mean.</p>"
    )
    note = results.core.normalization_note()
    if note:
        out.append(f'<p class="note">{e(note)}</p>')
    if not len(rows):
        out.append('<p class="note">no rows</p>')
    out += tables
    out.append("</section>")
    slowest = results.core.imbalance_text()
    if slowest:
        out.append('<section id="imbalance"><h2>Imbalance between ranks</h2>')
        out.append(f"<pre>{e(slowest)}</pre></section>")
    if plots and chosen:
        out.append(_plots_section(results, chosen, plot_options))
    elif chosen and not _have_matplotlib():
        out.append("<p class=\"note\">Plots need matplotlib: pip install 'kprof[plot]'.</p>")

    n_samples = results.core.num_samples
    if n_samples:
        listed = f"; the first {SAMPLES_MAX:,} listed" if n_samples > SAMPLES_MAX else ""
        out.append(
            '<section id="samples"><details>'
            f"<summary>Per-run values ({n_samples:,}{listed})</summary>"
            f"{samples_table(results, rows)}</details></section>"
        )
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out.append(f"<footer>Written by kprof {e(version())} on {e(now)}.</footer>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _chosen_metrics(all_metrics: Sequence[str], metrics: Sequence[str] | None) -> list[str]:
    """The metrics the page shows: ``metrics``, each one of the results' ``all_metrics``, or
    all."""
    if metrics is None:
        return list(all_metrics)
    for m in metrics:
        if m not in all_metrics:
            raise OptionError(
                "metric", repr(m), "one of " + (", ".join(map(repr, all_metrics)) or "none")
            )
    return list(metrics)


def _many_configs(results: ResultsData) -> bool:
    """Whether the page's plots (one per metric, a point per config) are of many configs, each
    series a line with its interval as a band (:data:`kprof._plot_plan.MANY_X`)."""
    return len(results.configs) > MANY_X


def _plots_section(
    results: ResultsData, metrics: Sequence[str], plot_options: Mapping[str, Any]
) -> str:
    """One plot per metric, embedded as base64 PNG; the results' DataFrame is made once."""
    e = html.escape
    out = ['<section id="plots"><h2>Plots</h2>']
    frame = results.to_dataframe()
    interval = "as a band" if _many_configs(results) else "bars"
    for m in metrics:
        options = dict(plot_options)
        options.setdefault("title", "")
        fig, _ = draw_results(results, None, frame=frame, metric=m, **options)
        alt = f"{m}: mean of each annotation per config, with 95% interval {interval}"
        out.append(
            f'<figure><img alt="{e(alt)}" src="data:image/png;base64,{_png_base64(fig)}">'
            f"<figcaption>{e(m)}</figcaption></figure>"
        )
    out.append("</section>")
    return "\n".join(out)


def write_html(
    results: ResultsData,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    plots: bool | None = None,
    metrics: Sequence[str] | None = None,
    source: str | None = None,
    overwrite: bool = True,
    **plot_options: Any,
) -> str:
    """Writes one self-contained HTML page about ``results``: the run's context (GPU, host,
    backend, cache and clock control, versions, date), the results table of each metric
    (values scaled as in :meth:`kprof.ProfileResults.table`), for results that measured
    ``set:analysis`` what limits each region (:meth:`kprof.ProfileResults.analysis`: verdict,
    throughputs, busiest unit, occupancy, FLOP per byte, TFLOP/s, advice) and its roofline, one
    plot per metric (base64 PNG), and the per-run values (folded). Inline CSS, no script,
    nothing fetched.

    Args:
        results: What to show.
        path: The file to write (replaced atomically; missing folders are created).
        title: The page's title; by default the ``source`` file's name.
        plots: Include plots; ``None`` (default) when matplotlib is installed (a note says
            how to get them otherwise); ``True`` requires matplotlib.
        metrics: The metrics to show; by default all.
        source: The file the results came from, shown in the context table.
        overwrite: Replace an existing file at ``path`` (default); False raises
            :class:`kprof.errors.OutputExistsError` instead.
        **plot_options: Options of :func:`kprof.analyze.plot` for the plots.

    Returns:
        The path written.
    """
    if plots:
        require_matplotlib()
    text = render_html(
        results, title=title, plots=plots, metrics=metrics, source=source, **plot_options
    )
    return write_atomic(path, lambda out: out.write(text.encode("utf-8")), overwrite=overwrite)


# --- the command ----------------------------------------------------------------------------


def _context_text(path: str, session: Mapping[str, Any]) -> str:
    """The lines the C++ ``kprof report FILE`` prints above the table (the core's brief context
    rows), aligned alike."""
    brief = [(label, text) for label, text, brief in _core.context_rows(dict(session)) if brief]
    rows = [("file", path), *brief]
    width = max(len(k) for k, _ in rows)
    return "".join(f"{k.ljust(width)}  {v}".rstrip() + "\n" for k, v in rows)


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would exit; the caller decides
        raise _UsageError(message)


def _parser() -> _Parser:
    p = _Parser(
        prog="kprof report",
        add_help=False,
        description="Print a saved result's table; draw it to an image, draw its roofline and "
        "write an HTML page.",
    )
    p.add_argument("file", metavar="FILE")
    for name, value_name, text, _python in _core.command_options("report"):
        if value_name:
            p.add_argument(name, metavar=value_name, help=text)
        else:
            p.add_argument(name, action="store_true", help=text)
    p.add_argument("-h", "--help", action="store_true", help="show this text")
    return p


def _can_show(flag: str, table: Callable[[], Any]) -> bool:
    """Whether the results hold what ``flag`` shows (``table()``, the core's, raises
    OptionError naming what they lack); if not, says so."""
    try:
        table()
    except OptionError as e:
        print(f"kprof report: {flag}: {e}\n{_usage()}", file=sys.stderr)
        return False
    return True


def _outputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(option, path) of each file the command line asks for."""
    given = [("--plot", args.plot), ("--html", args.html), ("--roofline", args.roofline)]
    return [(flag, path) for flag, path in given if path]


def _exists_text(path: str) -> str:
    """The C++ commands' refusal of an existing output (``kprof merge --out``)."""
    return f"{path} exists; pass --force to replace it"


def _outputs_error(args: argparse.Namespace) -> str:
    """Why the files asked for cannot be written, found before anything is read or printed:
    a file that exists (without ``--force``) or a picture ending matplotlib cannot write;
    "" when none. A folder, or one that cannot be made, is said when writing (exit 1)."""
    for flag, path in _outputs(args):
        if os.path.exists(path) and not os.path.isdir(path) and not args.force:
            return _exists_text(path)
        if flag != "--html" and _have_matplotlib():
            try:
                picture_format(path)
            except OptionError as e:
                return f"{flag}={path} is not valid; valid: {e.valid}"
    return ""


def main(argv: Sequence[str]) -> int:
    """``kprof report FILE [--explain] [--stalls] [--source] [--plot PATH] [--html PATH]
    [--roofline PATH] [--metric NAMES] [--force]``.

    ``argv`` starts with the command's name (``["report", "results.json", "--plot",
    "x.png"]``). Prints the results table (the core's :meth:`~kprof.ProfileResults.table`),
    then writes the plot, the HTML page and the roofline
    (:meth:`~kprof.ProfileResults.plot_roofline`) when asked, naming each file written. A file
    that exists is replaced only with ``--force``. Errors are one line on stderr, ``kprof
    report: <message>``. Exit codes as the other commands: 0 done, 1 an output could not be
    written (matplotlib missing, a folder not writable, a full disk, no region with FLOP and
    DRAM bytes for the roofline; the message names the file), 2 a wrong command line, a file
    that cannot be read, an output that exists without ``--force``, a picture ending
    matplotlib cannot write, or ``--roofline`` for results without the metrics of
    set:analysis (all before anything is printed, as ``--explain``).
    """
    args_in = list(argv)
    if args_in and args_in[0] == "report" and not os.path.exists("report"):
        args_in = args_in[1:]  # the command's name, not a file called "report"
    parser = _parser()
    try:
        args = parser.parse_args(args_in)
    except _UsageError as e:
        if "-h" in args_in or "--help" in args_in:
            print(parser.format_help(), end="")
            return EXIT_OK
        print(f"kprof report: {e}\n{_usage()}", file=sys.stderr)
        return EXIT_USAGE
    if args.help:
        print(parser.format_help(), end="")
        return EXIT_OK
    refused = _outputs_error(args)
    if refused:
        print(f"kprof report: {refused}\n{_usage()}", file=sys.stderr)
        return EXIT_USAGE
    try:
        results = ResultsData(_saving.read(args.file))
    except (FormatError, ImportError) as e:
        print(f"kprof report: cannot read FILE: {e}", file=sys.stderr)
        return EXIT_USAGE
    metrics = None
    if args.metric:
        metrics = [m.strip() for m in args.metric.split(",") if m.strip()]
        unknown = [m for m in metrics if m not in results.metrics]
        if unknown:
            valid = ", ".join(results.metrics) or "none"
            wrong = ",".join(unknown)
            print(
                f"kprof report: --metric={wrong} is not valid; valid: {valid}\n{_usage()}",
                file=sys.stderr,
            )
            return EXIT_USAGE
    flag = "--explain" if args.explain else "--roofline"
    if (args.explain or args.roofline) and not _can_show(flag, results.analysis):
        return EXIT_USAGE
    if args.stalls and not _can_show("--stalls", results.stalls):
        return EXIT_USAGE
    if args.source and not _can_show("--source", results.source_dataframe):
        return EXIT_USAGE
    print(_context_text(args.file, results.session) + "\n" + results.table(), end="", flush=True)
    if args.explain:
        print("\n" + results.explain(), end="", flush=True)
    if args.stalls:
        print("\n" + results.stalls_text(), end="", flush=True)
    if args.source:
        print("\n" + results.source_text(), end="", flush=True)
    return _write_outputs(args, results, metrics)


def _write_outputs(
    args: argparse.Namespace, results: ResultsData, metrics: Sequence[str] | None
) -> int:
    """Writes the files the command line asks for, in its order, naming each; the exit code."""
    name = os.path.basename(args.file)
    for flag, path in _outputs(args):
        try:
            said = ""
            if flag == "--plot":
                said = _plot(results, path, args.force, metrics, name)
            elif flag == "--html":
                write_html(results, path, metrics=metrics, source=args.file, overwrite=args.force)
            else:
                plot_roofline(results, path, title=name, overwrite=args.force)
        except OutputExistsError:  # a file that appeared since the check before the table
            print(f"kprof report: {_exists_text(path)}", file=sys.stderr)
            return EXIT_USAGE
        except (ImportError, OSError, KprofError) as e:
            print(f"kprof report: {e}", file=sys.stderr)
            return EXIT_FAILED
        print(f"wrote {path}{said}")
    return EXIT_OK


def _plot(
    results: ResultsData, path: str, force: bool, metrics: Sequence[str] | None, name: str
) -> str:
    """Draws ``--plot``; says which metrics did not fit in the figure, if any."""
    _, grid = draw_results(results, path, overwrite=force, metric=metrics, title=name)
    if not grid.left_out:
        return ""
    total = len(grid.drawn) + len(grid.left_out)
    return (
        f" ({len(grid.drawn)} of {total} metrics, as many as fit at a readable size; not "
        f"drawn: {', '.join(grid.left_out)}; --metric NAME,... picks the metrics to draw)"
    )
