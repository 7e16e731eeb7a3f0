"""The HTML report and its plots at the size of an autotuning sweep (synthetic results of
thousands of configs, aggregated by the core): a metric of more rows than a person reads is
summarized as its slowest, fastest and least stable rows, and the page says so at its top and
where the whole table is; a plot of many configs is a line over a numeric axis of few ticks.
Speed is measured in bench/results_scale.py, not here.
"""

from __future__ import annotations

import kprof
import pytest
from conftest import make_records
from kprof import report
from kprof._plot_plan import MANY_X
from kprof._report_tables import SUMMARY_ROWS, TABLE_MAX_ROWS
from kprof.results import ProfileResults
from test_report import html_rows, parse, text_table

DURATION = ("gpu__time_duration.sum", "ns")
BYTES = ("dram__bytes_read.sum", "B")


@pytest.fixture
def sweep(synthetic):
    """sweep(configs, metrics=(DURATION,), block=False): results of one annotation over
    ``configs`` configs (n = 1024, 2048, ...; and a block size when ``block``), 3 runs each.
    The means are a permutation of the configs (no two alike), the spreads vary."""

    def build(configs: int, metrics=(DURATION,), block: bool = False) -> ProfileResults:
        rows = []
        for c in range(configs):
            mean = 1000.0 + (c * 7919) % configs  # 7919 is prime: every mean once
            spread = (c * 31 % 97) / 1000
            for run, f in enumerate((1 - spread, 1.0, 1 + spread)):
                for k, (metric, unit) in enumerate(metrics):
                    value = mean * f * (k + 1)
                    rows.append((c, run, "fma", "fma_kernel", 0, metric, value, unit))
        names = ["n", "block"] if block else ["n", "dtype"]
        points = [[1024 * (c + 1), 64 * (c % 4 + 1) if block else "fp32"] for c in range(configs)]
        core = synthetic(names, points, make_records(rows), metrics=[m for m, _ in metrics])
        return ProfileResults(core)

    return build


def _page(results, source: str = "big.json", **options):
    text = report.render_html(results, source=source, **options)
    return text, parse(text)


def _size_note(text: str) -> str:
    start = text.find('<p class="size-note">')
    return "" if start < 0 else text[start : text.index("</p>", start)]


def _expected(results, metric: str, by: str, descending: bool) -> list[int]:
    """The n of the first SUMMARY_ROWS rows of ``metric`` ordered by ``by``, ties in sweep
    order (pandas' stable sort keeps it either way)."""
    df = results.to_dataframe()
    df = df[df["Metric"] == metric].dropna(subset=[by])
    df = df.sort_values(by, ascending=not descending, kind="stable")
    return [int(n) for n in df["n"].head(SUMMARY_ROWS)]


def test_a_sweep_too_large_to_read_is_summarized_and_says_so_at_the_top(sweep):
    results = sweep(20_000)
    text, page = _page(results, plots=False)
    note = _size_note(text)
    assert note, "the page says what it shows"
    assert text.index(note) < text.index('<section id="context">'), "the note is at the top"
    assert "20,000 rows: showing the 20 slowest, 20 fastest and 20 least stable" in note
    assert 'kprof.load("big.json").to_dataframe()' in note and "kprof report big.json" in note

    tables = [t for t in page.tables if t["class"] == "results"]
    metric = DURATION[0]
    assert [t["caption"] for t in tables] == [
        f"{metric}: the 20 slowest of 20,000 rows (mean)",
        f"{metric}: the 20 fastest of 20,000 rows (mean)",
        f"{metric}: the 20 least stable of 20,000 rows (highest RSD%)",
    ]
    got = [[int(row["n"]) for row in html_rows(t)] for t in tables]
    assert got[0] == _expected(results, metric, "AvgValue", descending=True)
    assert got[1] == _expected(results, metric, "AvgValue", descending=False)
    assert got[2] == _expected(results, metric, "RelativeStdDevPct", descending=True)
    # The numbers are the text table's, row for row.
    text_rows = {int(r["n"]): r for r in text_table(results)}
    for t in tables:
        for row in html_rows(t):
            expected = text_rows[int(row["n"])]
            assert {k: row[k] for k in row} == {k: expected[k] for k in row}
    assert "Per-run values (60,000; the first 5,000 listed)" in text
    samples = next(t for t in page.tables if t["class"] == "samples")
    assert len(samples["rows"]) == 1 + 5_000
    assert len(text) < 2_000_000, "a page a browser opens at once"


def test_a_metric_of_the_limit_is_whole_and_one_more_row_is_summarized(sweep):
    text, page = _page(sweep(TABLE_MAX_ROWS), plots=False)
    tables = [t for t in page.tables if t["class"] == "results"]
    assert _size_note(text) == ""
    assert [len(html_rows(t)) for t in tables] == [TABLE_MAX_ROWS]
    assert ".size-note" not in text, "a page shown whole carries no rule for the note"

    text, page = _page(sweep(TABLE_MAX_ROWS + 1), plots=False)
    tables = [t for t in page.tables if t["class"] == "results"]
    assert f"{TABLE_MAX_ROWS + 1:,} rows: showing" in _size_note(text)
    assert [len(html_rows(t)) for t in tables] == [SUMMARY_ROWS] * 3


def test_metrics_other_than_durations_are_highest_and_lowest(sweep):
    results = sweep(TABLE_MAX_ROWS + 50, metrics=(DURATION, BYTES))
    text, page = _page(results, plots=False)
    note = _size_note(text)
    assert f"{2 * (TABLE_MAX_ROWS + 50)} rows in 2 metrics: each metric of more than" in note
    assert "the 20 highest (slowest, for durations), 20 lowest (fastest)" in note
    captions = [t["caption"] for t in page.tables if t["class"] == "results"]
    assert captions[3:5] == [
        f"{BYTES[0]}: the 20 highest of 250 rows (mean)",
        f"{BYTES[0]}: the 20 lowest of 250 rows (mean)",
    ]
    # Only bytes: no word about durations.
    text, _ = _page(results, plots=False, metrics=[BYTES[0]])
    assert "250 rows: showing the 20 highest, 20 lowest (by mean) and 20 least" in _size_note(text)


def test_the_recordings_are_shown_whole_without_a_note():
    from conftest import DATA

    for path in sorted(DATA.glob("h200-*.json")):
        text = report.render_html(kprof.load(path), plots=False, source=path.name)
        assert _size_note(text) == "" and ".size-note" not in text, path.name


def test_the_command_writes_the_summary_with_a_plot_of_lines(sweep, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    saved = tmp_path / "sweep.json"
    sweep(3_000).save(saved)
    out = tmp_path / "sweep.html"
    assert report.main(["report", str(saved), "--html", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    note = _size_note(text)
    assert note.startswith('<p class="size-note">3,000 rows: showing the 20 slowest')
    assert "The plots draw each series as a line over the 3,000 configs" in note
    assert len(parse(text).images) == 1
    assert f"wrote {out}" in capsys.readouterr().out


# --- plots of many configs ----------------------------------------------------------------------


def _axes(results, **options):
    pytest.importorskip("matplotlib")
    fig = results.plot(**options)
    return fig, fig.axes[0]


def _visible_ticks(ax) -> list[float]:
    lo, hi = ax.get_xlim()
    return [t for t in ax.get_xticks() if lo <= t <= hi]


def test_many_configs_of_one_number_are_a_line_on_a_numeric_axis(sweep):
    from matplotlib.collections import PolyCollection

    results = sweep(2_000)
    fig, ax = _axes(results)
    assert len(ax.lines) == 1, "one line per series, no marker or bar per config"
    xs = list(ax.lines[0].get_xdata())
    assert len(xs) == 2_000 and xs == sorted(xs) and xs[0] == 1024
    assert ax.lines[0].get_marker() in ("None", None, "")
    assert any(isinstance(c, PolyCollection) for c in ax.collections), "the 95% band"
    assert 2 <= len(_visible_ticks(ax)) <= 10
    assert ax.get_xlabel() == "n (dtype=fp32)"
    assert "band: 95% CI" in fig._suptitle.get_text()


def test_many_configs_of_several_parameters_are_placed_by_their_index(sweep):
    results = sweep(MANY_X + 1, block=True)
    _, ax = _axes(results)
    assert ax.get_xlabel() == f"config, in sweep order ({MANY_X + 1} configs: n, block)"
    ticks = _visible_ticks(ax)
    assert 2 <= len(ticks) <= 10 and all(float(t).is_integer() for t in ticks)
    assert list(ax.lines[0].get_xdata()) == list(range(MANY_X + 1))


def test_the_axis_of_the_limit_keeps_a_label_per_config(sweep):
    _, ax = _axes(sweep(MANY_X, block=True))
    assert len(ax.get_xticks()) == MANY_X
    assert ax.get_xticklabels()[0].get_text() == "n=1024\nblock=64"


def test_bars_and_an_aggregate_of_many_configs_are_a_line_and_a_level(sweep):
    from kprof import _core
    from matplotlib.patches import Rectangle

    results = sweep(500)
    _, ax = _axes(results, plot_type="bar", show_aggregate="geomean", annotate_points=True)
    assert not [p for p in ax.patches if isinstance(p, Rectangle)], "no bar per config"
    series, level = ax.lines
    means = results.to_dataframe()["AvgValue"].tolist()
    geomean = _core._geomean(means) * 1e-3  # shown in us
    assert level.get_ydata()[0] == pytest.approx(geomean)
    texts = [t.get_text() for t in ax.texts]
    assert texts == [f"Geomean {_core._format_number(geomean)}"], "no number per point"


def test_the_analysis_of_a_sweep_shows_its_first_regions_and_says_where_the_rest_is():
    """The recording of set:analysis (5 regions of one config) measured again and again: 41
    configs are 205 regions, more than a table shows."""
    from conftest import DATA
    from kprof import _core

    recording = kprof.load(DATA / "h200-analysis-2026-12-03.json")
    once = recording.core.records_columns()
    configs = TABLE_MAX_ROWS // 5 + 1
    records = {k: [v for _ in range(configs) for v in values] for k, values in once.items()}
    records["config"] = [c for c in range(configs) for _ in once["config"]]
    options = _core.Options()
    options.runs = recording.session["runs"]
    options.metrics = list(recording.session["metrics"])
    session = {k: v for k, v in recording.session.items() if v is not None}
    points = [[c] for c in range(configs)]
    results = ProfileResults(_core._aggregate(session, ["n"], points, records, options))
    regions = len(results.analysis())
    assert regions == 5 * configs > TABLE_MAX_ROWS

    text, page = _page(results, plots=True, metrics=[results.metrics[0]])
    analysis = next(t for t in page.tables if t["class"] == "analysis")
    numbers = [row for row in analysis["rows"][1:] if len(row) > 1]  # advice rows are 1 cell
    assert len(numbers) == TABLE_MAX_ROWS
    assert f"{regions:,} regions: the first {TABLE_MAX_ROWS}, in sweep order, are shown" in text
    assert "results.plot_roofline(PATH)</code> draws it" in text
    assert not any("Roofline" in (img.get("alt") or "") for img in page.images)
