"""The HTML report, the notebook view and ``kprof report`` on real H200 recordings (tests/data).

The page is parsed back (html.parser) and checked for what it claims: the run's context, one
table per metric whose numbers are the text table's, one embedded PNG per metric that decodes
to a picture that is not blank, and nothing that needs the network. When a Chromium binary is
on the machine, a headless screenshot of the page is decoded and looked at too.
"""

from __future__ import annotations

import base64
import io
import re
import sys
from html.parser import HTMLParser

import kprof
import numpy as np
import pytest
from conftest import DATA
from kprof import report
from machine import headless_chromium

MATMUL = DATA / "h200-torch-matmul-sweep-2026-11-30.json"
DEMO = DATA / "h200-python-demo-2026-11-30.json"
RECORDINGS = sorted(DATA.glob("*.json"))


class Page(HTMLParser):
    """The parts of a page the tests look at."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[dict] = []  # {"class", "caption", "rows": [[cell, ...], ...]}
        self.images: list[dict[str, str | None]] = []
        self.text: list[str] = []
        self._table: dict | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._in_caption = False
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "table":
            self._table = {"class": a.get("class"), "caption": "", "rows": []}
            self.tables.append(self._table)
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table["rows"].append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "caption":
            self._in_caption = True
        elif tag == "img":
            self.images.append(a)
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "caption":
            self._in_caption = False
        elif tag == "title":
            self._in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._in_caption and self._table is not None:
            self._table["caption"] += data
        if self._in_title:
            self.title += data


def parse(text: str) -> Page:
    p = Page()
    p.feed(text)
    p.close()
    return p


def analysed(results) -> bool:
    """Whether the results hold set:analysis: the page then draws their roofline too."""
    try:
        results.analysis()
    except kprof.errors.OptionError:
        return False
    return True


def text_table(results) -> list[dict[str, str]]:
    """The rows of ``results.table()``, cells by column name."""
    lines = results.table().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Annotation"))
    head = re.split(r"\s{2,}", lines[start].strip())
    rows = []
    for line in lines[start + 1 :]:
        if line.strip():
            cells = re.split(r"\s{2,}", line.strip())
            if len(cells) == len(head) - 1 and head[-1] == "Unit":
                cells.append("")  # a count without a unit (launch__waves_per_multiprocessor)
            assert len(cells) == len(head), line
            rows.append(dict(zip(head, cells, strict=True)))
    return rows


def html_rows(table: dict) -> list[dict[str, str]]:
    head, *body = table["rows"]
    return [dict(zip(head, row, strict=True)) for row in body]


def decode_png(data: bytes) -> np.ndarray:
    import matplotlib.image as mimage

    img = mimage.imread(io.BytesIO(data), format="png")
    return img[:, :, :3]


def ink(img: np.ndarray) -> float:
    return float((img.min(axis=2) < 0.9).mean())


def assert_self_contained(page: Page) -> None:
    for tag, attrs in page.tags:
        assert tag not in ("script", "link", "iframe", "object", "embed"), tag
        for name in ("src", "href"):
            value = attrs.get(name) or ""
            assert not re.match(r"^(https?:)?//", value), f"{tag} {name}={value[:60]}"
            if value:
                assert value.startswith(("data:", "#")), value[:60]


# --- the page -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_page_shows_context_tables_and_plots(path, tmp_path):
    pytest.importorskip("matplotlib")
    results = kprof.load(path)
    out = report.write_html(results, tmp_path / "r.html", source=str(path))
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert out == str(tmp_path / "r.html")
    assert text.startswith("<!DOCTYPE html>")
    page = parse(text)
    assert page.title == f"kprof report: {path.name}"
    assert_self_contained(page)

    # The context: where, when and how.
    context = next(t for t in page.tables if t["class"] == "context")
    facts = {row[0]: row[1] for row in context["rows"]}
    s = results.session
    assert facts["file"] == str(path)
    # Nsight Compute's reports name the GPU, not the device ordinal kprof's engine saw.
    device = "" if s["backend"] == "nsight-compute" else " (device 0)"
    assert facts["GPU"].startswith(f"NVIDIA H200{device}, rated clocks: SM 1980 MHz")
    assert facts["host"] == s["host"]
    assert facts["date"] == s["started_at"]
    passes = f"{s['passes']} pass" + ("es" if s["passes"] != 1 else "")
    assert facts["backend"] == f"{s['backend']} (replay {s['replay_mode']}, {passes})"
    assert s["backend"] in ("cupti-activity", "cupti-range-profiler", "nsight-compute")
    assert facts["cache control"] == "all" and facts["clock control"] == "none"
    assert facts["runs"] == f"{s['runs']} per config"
    cupti = int(s.get("cupti_version") or 0)  # 130001: 13.0.1 (13.5.0 preloaded for set:flop)
    cupti = f"{cupti // 10000}.{cupti // 100 % 100}.{cupti % 100}"
    cuda = "" if device == "" else f", CUDA driver 13.0, CUDA runtime 13.0, CUPTI {cupti}"
    assert facts["versions"] == f"kprof 0.1.0{cuda}"  # Nsight Compute's own CUPTI goes unnamed

    # One table per metric, with the text table's numbers.
    tables = [t for t in page.tables if t["class"] == "results"]
    assert [t["caption"] for t in tables] == results.metrics
    expected = text_table(results)
    got = []
    for t in tables:
        for row in html_rows(t):
            row["Metric"] = t["caption"]
            got.append(row)
    assert len(got) == len(results) == len(expected)
    key = ["Annotation", *results.parameters, "Metric"]
    numbers = ["Mean", "Median", "StdDev", "CI95", "RSD%", "Runs", "Unit"]
    if "KernelIndex" in expected[0]:
        key.append("KernelIndex")
    if "Rank" in expected[0]:  # merged results of several ranks
        key.append("Rank")
    by_key = {tuple(r[k] for k in key): r for r in expected}
    for row in got:
        want = by_key[tuple(row[k] for k in key)]
        assert [row[n] for n in numbers] == [want[n] for n in numbers]

    # One plot per metric, embedded, decoding to a picture with something on it.
    assert len(page.images) == len(results.metrics) + analysed(results)  # and the roofline
    for img in page.images:
        src = img["src"] or ""
        assert src.startswith("data:image/png;base64,")
        picture = decode_png(base64.b64decode(src.split(",", 1)[1]))
        assert picture.shape[0] > 200 and picture.shape[1] > 300
        assert ink(picture) > 0.02
        assert img["alt"]

    # The per-run values, folded.
    samples = next(t for t in page.tables if t["class"] == "samples")
    assert len(samples["rows"]) - 1 == results.core.num_samples


def test_context_shows_what_the_file_records_with_numbers_as_the_cli_rounds_them():
    for path in RECORDINGS:
        rows = report.context_rows(kprof.load(path).session)
        assert all(text and text.lower() != "nan" for _, text in rows), path.name
    counters = dict(
        report.context_rows(kprof.load(DATA / "h200-python-counters-2026-11-30.json").session)
    )
    assert counters["profiler seconds"] == "0.3163"  # recorded as 0.31625873300000007
    assert counters["throttle threshold"] == "0.75" and counters["clock source"] == "counters"
    assert not any(label.startswith("stop ") for label in counters)  # no stopping rule
    demo = dict(report.context_rows(kprof.load(DEMO).session))  # written before the conditions
    assert list(demo) == [
        "GPU",
        "host",
        "date",
        "backend",
        "cache control",
        "clock control",
        "runs",
        "metrics measured",
        "versions",
    ]


def test_unstable_rows_are_marked(tmp_path):
    pytest.importorskip("matplotlib")
    results = kprof.load(DEMO)
    text = report.render_html(results, plots=False)
    df = results.to_dataframe()
    unstable = int((df["StableMeasurement"] == False).sum())  # noqa: E712 (nullable boolean)
    assert unstable > 0
    assert text.count('class="num unstable"') == unstable


def test_page_without_matplotlib_says_how_to_get_plots(monkeypatch, tmp_path):
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    report.write_html(kprof.load(MATMUL), tmp_path / "r.html")
    page = parse((tmp_path / "r.html").read_text())
    assert page.images == []
    assert "Plots need matplotlib" in "".join(page.text)
    assert len([t for t in page.tables if t["class"] == "results"]) == 2


def test_notebook_view_is_a_table_with_the_context_line():
    results = kprof.load(MATMUL)
    text = results._repr_html_()
    page = parse(text)
    assert "NVIDIA H200 · vm · cupti-activity · cache all · 2026-11-30 · 20 runs" in page.text
    (table,) = page.tables
    rows = html_rows(table)
    assert len(rows) == len(results)
    assert [r["Unit"] for r in rows] == [r["Unit"] for r in text_table(results)]
    assert rows[3]["Mean"] == "2.673" and rows[3]["Unit"] == "ms"
    assert_self_contained(page)


def test_notebook_view_of_normalized_results_says_relative_to():
    text = kprof.load(DATA / "h200-python-normalized-2026-11-30.json")._repr_html_()
    assert "values relative to memory/scale" in text


# --- kprof report ---------------------------------------------------------------------------------


def test_report_prints_the_table_and_writes_both_files(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png, page = tmp_path / "m.png", tmp_path / "out" / "m.html"
    rc = report.main(["report", str(MATMUL), "--plot", str(png), "--html", str(page)])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert out.out.startswith(f"file           {MATMUL}\nGPU            NVIDIA H200 (device 0)")
    assert kprof.load(MATMUL).table() in out.out
    assert f"wrote {png}" in out.out and f"wrote {page}" in out.out
    assert ink(decode_png(png.read_bytes())) > 0.02
    assert len(parse(page.read_text()).images) == 2


def test_report_text_is_the_cpp_commands(capfd):
    """Without --plot/--html the C++ command prints the report; with them, this module. Both
    print the same text above the files written."""
    from kprof import _core

    rc = _core.cli_main(["kprof", "report", str(MATMUL)])
    cpp = capfd.readouterr()
    if rc != 0 and "unknown command" in cpp.err:
        pytest.skip("this build's kprof command has no report")
    assert rc == 0
    assert report.main([str(MATMUL)]) == 0  # as kprof.cli passes it: without "report"
    assert capfd.readouterr().out == cpp.out


def test_report_metric_option(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    rc = report.main(["report", str(MATMUL), "--metric", "tflops", "--html", str(tmp_path / "t")])
    assert rc == 0
    page = parse((tmp_path / "t").read_text())
    assert [t["caption"] for t in page.tables if t["class"] == "results"] == ["tflops"]
    assert len(page.images) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["report"], "the following arguments are required: FILE"),
        (["report", str(MATMUL), "--plat", "x.png"], "unrecognized arguments"),
        (["report", str(MATMUL), "--metric", "bogus"], "--metric=bogus is not valid"),
        (["report", "missing.json"], "cannot read FILE"),
    ],
)
def test_report_usage_errors(argv, message, capsys):
    rc = report.main(argv)
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("kprof report: ") and message in err


def test_report_output_that_cannot_be_written(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    rc = report.main(["report", str(MATMUL), "--plot", str(blocker / "x.png")])
    assert rc == 1
    assert capsys.readouterr().err.startswith("kprof report: ")


ANALYSIS = DATA / "h200-analysis-2026-12-03.json"
OUTPUTS = [
    ("--plot", MATMUL, "m.png"),
    ("--html", MATMUL, "m.html"),
    ("--roofline", ANALYSIS, "r.png"),
]


@pytest.mark.parametrize(("flag", "recording", "name"), OUTPUTS)
def test_report_replaces_a_file_only_with_force(flag, recording, name, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / name
    path.write_bytes(b"kept")
    rc = report.main(["report", str(recording), flag, str(path)])
    out = capsys.readouterr()
    assert rc == 2
    assert out.err == f"kprof report: {path} exists; pass --force to replace it\n{report.USAGE}\n"
    assert out.out == "", "refused before the table is printed"
    assert path.read_bytes() == b"kept"
    rc = report.main(["report", str(recording), flag, str(path), "--force"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert out.out.endswith(f"wrote {path}\n")
    assert path.read_bytes() != b"kept" and path.stat().st_size > 1000


def test_report_keeps_a_file_that_appears_while_it_runs(tmp_path, capsys, monkeypatch):
    """The check before the table can be overtaken: the file is then kept all the same, with
    the same message (the write itself refuses to replace it)."""
    pytest.importorskip("matplotlib")
    path = tmp_path / "m.png"
    real = report.draw_results

    def another_process_writes_first(results, filename, **kwargs):
        path.write_bytes(b"theirs")
        return real(results, filename, **kwargs)

    monkeypatch.setattr(report, "draw_results", another_process_writes_first)
    rc = report.main(["report", str(MATMUL), "--plot", str(path)])
    assert rc == 2
    assert capsys.readouterr().err == f"kprof report: {path} exists; pass --force to replace it\n"
    assert path.read_bytes() == b"theirs"


@pytest.mark.parametrize(("flag", "recording", "name"), OUTPUTS)
def test_report_outputs_that_cannot_be_written_name_the_path(
    flag, recording, name, tmp_path, capsys
):
    pytest.importorskip("matplotlib")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cases = [
        (f"/proc/{name}", f"kprof report: cannot write /proc/{name}: "),
        (
            str(blocker / name),
            f"kprof report: cannot write {blocker / name}: {blocker} is a file, not a folder",
        ),
    ]
    for path, message in cases:
        rc = report.main(["report", str(recording), flag, path])
        err = capsys.readouterr().err
        assert rc == 1
        assert err.startswith(message) and err.count("\n") == 1 and ".tmp" not in err
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize("flag", ["--plot", "--roofline"])
def test_report_picture_ending_is_checked_before_the_table(flag, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / "x.unknownext"
    rc = report.main(["report", str(ANALYSIS), flag, str(path)])
    out = capsys.readouterr()
    assert rc == 2 and out.out == ""
    assert out.err.startswith(f"kprof report: {flag}={path} is not valid; valid: a name ending in")
    assert ".png" in out.err.splitlines()[0] and not path.exists()


def test_report_help_lists_the_options_of_the_command_lines_one_table(capsys):
    assert report.main(["report", "--help"]) == 0
    out = capsys.readouterr().out
    for name, value_name, text, _python in kprof._core.command_options("report"):
        assert f"{name} {value_name}".strip() in out
        assert text.split()[0] in out
    assert report.USAGE.startswith(
        "usage: kprof report FILE [--explain] [--stalls] [--source] [--plot PATH]"
    )


# --- in a browser ---------------------------------------------------------------------------------


def test_page_in_headless_chromium(tmp_path):
    """A browser renders the page: the screenshot has text, the green of the headings and the
    first series, and the plots (the page's images) are drawn, not broken-image icons."""
    pytest.importorskip("matplotlib")
    page = tmp_path / "r.html"
    report.write_html(kprof.load(MATMUL), page, source=MATMUL.name)
    shot = tmp_path / "shot.png"
    headless_chromium(page, tmp_path, 1280, 2400, f"--screenshot={shot}")
    img = decode_png(shot.read_bytes())
    assert img.shape[:2] == (2400, 1280)
    assert ink(img) > 0.02
    green = np.array([0x76, 0xB9, 0x00]) / 255
    near = np.abs(img - green).max(axis=2) < 0.08
    assert near.sum() > 500  # heading rules and the plotted series
    # The plots are rendered: rows of the lower half hold long runs of plot pixels (a broken
    # image would leave the area white).
    lower = img[1000:2200]
    assert ink(lower) > 0.01
