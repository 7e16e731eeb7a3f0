"""``ProfileResults.stalls()`` and ``stalls_text()``: set:source's warp samples as each stall
reason's share of a region's samples, computed by the core from the rows (made-up records of
the sampled metrics aggregated by it here; the GPU tests sample real kernels)."""

from __future__ import annotations

import re

import kprof
import pytest
from conftest import make_records
from kprof import ProfileResults
from kprof.errors import OptionError

COUNT = "smsp__pcsamp_sample_count"
STALL = "smsp__pcsamp_warps_issue_stalled_"


def sampled(values: dict[str, float], config: int = 0, annotation: str = "k") -> list[tuple]:
    """One kernel's records of a sampled call: a sample count and each reason's samples."""
    rows = [(config, 0, annotation, "kern", 0, COUNT, sum(values.values()), "sample")]
    rows += [(config, 0, annotation, "kern", 0, STALL + r, v, "sample") for r, v in values.items()]
    return rows


@pytest.fixture
def two_regions(synthetic):
    rows = sampled({"long_scoreboard": 90, "selected": 8, "wait": 2})
    rows += sampled({"barrier": 30, "wait": 10}, annotation="sync")
    rows += [(0, 0, "k", "kern", 0, STALL + "long_scoreboard_not_issued", 85, "sample")]
    rows += sampled({"long_scoreboard": 50, "selected": 50}, config=1)
    rows += sampled({"barrier": 40}, config=1, annotation="sync")
    return ProfileResults(synthetic(["n"], [[1024], [2048]], make_records(rows)))


def test_a_row_per_region_and_reason_most_samples_first(two_regions):
    frame = two_regions.stalls()
    k = frame[(frame["Annotation"] == "k") & (frame["n"] == 1024)]
    assert list(k["Reason"]) == ["long_scoreboard", "selected", "wait"]  # not _not_issued
    assert list(k["SharePct"]) == pytest.approx([90.0, 8.0, 2.0])
    assert list(k["Samples"]) == pytest.approx([90.0, 8.0, 2.0])
    assert set(k["Region"]) == {"k (n=1024)"}
    sync = frame[(frame["Annotation"] == "sync") & (frame["n"] == 1024)]
    assert list(sync["SharePct"]) == pytest.approx([75.0, 25.0])
    assert list(frame.columns[:6]) == [
        "Annotation",
        "Kernel",
        "Region",
        "Reason",
        "Samples",
        "SharePct",
    ]


def test_the_text_shows_each_region_with_its_bars(two_regions):
    text = two_regions.stalls_text()
    assert text.startswith("why the warps waited, in % of each region's warp samples:\n")
    assert "k (n=1024)\n  long_scoreboard" in text
    line = next(x for x in text.splitlines() if x.strip().startswith("long_scoreboard"))
    assert "90%" in line and "#" * 36 in line  # 90% of a 40-character bar
    assert "sync (n=2048)\n  barrier" in text


def test_results_without_samples_are_refused_naming_the_set(synthetic):
    rows = [(0, 0, "k", "kern", 0, "gpu__time_duration.sum", 1000.0, "ns")]
    results = ProfileResults(synthetic([], [[]], make_records(rows)))
    with pytest.raises(OptionError, match="set:source") as info:
        results.stalls()
    assert info.value.option == "metrics"


def test_the_set_is_listed_with_its_reasons():
    members = kprof.metrics.expand(["set:source"])
    assert members[:2] == ["gpu__time_duration.sum", COUNT]
    assert STALL + "long_scoreboard" in members and STALL + "barrier" in members


def test_kprof_report_stalls_prints_them_after_the_table(two_regions, tmp_path, capsys):
    from kprof import report

    path = tmp_path / "sampled.json"
    two_regions.save(path)
    assert report.main([str(path), "--stalls"]) == 0
    out = capsys.readouterr().out
    assert out.index("Metric") < out.index("why the warps waited") < out.index("sync (n=2048)")


def test_kprof_report_stalls_without_samples_exits_2_before_printing(synthetic, tmp_path, capsys):
    from kprof import report

    rows = [(0, 0, "k", "kern", 0, "gpu__time_duration.sum", 1000.0, "ns")]
    path = tmp_path / "timed.json"
    ProfileResults(synthetic([], [[]], make_records(rows))).save(path)
    assert report.main([str(path), "--stalls"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("kprof report: --stalls: metrics=")


def test_the_html_section_shows_each_regions_reasons_with_bars(two_regions):
    from kprof._stalls_html import stalls_section

    section = stalls_section(two_regions)
    assert section.startswith('<section id="stalls"><h2>Why the warps waited</h2>')
    regions = re.findall(r'<tbody class="region">(.*?)</tbody>', section)
    assert len(regions) == 4  # k and sync, in both configs
    first = regions[0]
    assert 'rowspan="3" title="kern">k (n=1024)</td>' in first
    assert re.findall(r"<td>([a-z_]+)</td>", first) == ["long_scoreboard", "selected", "wait"]
    assert '<td class="num">90%</td>' in first
    assert '<div class="bar" style="width:90.0%"></div>' in first
    assert "not_issued" not in section


def test_no_html_section_without_samples(synthetic):
    from kprof._stalls_html import stalls_section

    rows = [(0, 0, "k", "kern", 0, "gpu__time_duration.sum", 1000.0, "ns")]
    assert stalls_section(ProfileResults(synthetic([], [[]], make_records(rows)))) == ""


def test_the_report_page_has_the_section_after_the_analysis(two_regions):
    from kprof import report

    page = report.render_html(two_regions, plots=False)
    assert page.index('<section id="stalls">') < page.index('<section id="context">')
