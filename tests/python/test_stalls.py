"""``ProfileResults.stalls()`` and ``stalls_text()``: set:source's warp samples as each stall
reason's share of a region's samples, computed by the core from the rows (made-up records of
the sampled metrics aggregated by it here; the GPU tests sample real kernels)."""

from __future__ import annotations

import re

import kprof
import pytest
from conftest import COUNT, STALL, make_records, with_source
from kprof import ProfileResults
from kprof.errors import OptionError


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


@pytest.fixture
def sampled_lines(two_regions, tmp_path):
    lines = [
        (0, "k", "kern", 0x40, "LDG", "/src/k.cu", 12, "long_scoreboard", 80.0),
        (0, "k", "kern", 0x40, "LDG", "/src/k.cu", 12, "long_scoreboard_not_issued", 70.0),
        (0, "k", "kern", 0x40, "LDG", "/src/k.cu", 12, "wait", 2.0),
        (0, "k", "kern", 0x80, "FFMA", "/src/k.cu", 14, "selected", 8.0),
        (0, "k", "kern", 0x80, "FFMA", "/src/k.cu", 14, "long_scoreboard", 10.0),
        (1, "k", "kern", 0x40, "LDG", "", 0, "long_scoreboard", 50.0),
    ]
    return with_source(two_regions, lines, tmp_path)


def test_each_sampled_instruction_with_its_share_and_reasons(sampled_lines):
    frame = sampled_lines.source_dataframe()
    k0 = frame[(frame["Annotation"] == "k") & (frame["n"] == 1024)]
    assert list(k0["PcOffset"]) == [0x40, 0x80]  # most samples first
    assert list(k0["Samples"]) == pytest.approx([82.0, 18.0])  # _not_issued left out
    assert list(k0["SharePct"]) == pytest.approx([82.0, 18.0])
    assert list(k0["TopReason"]) == ["long_scoreboard", "long_scoreboard"]
    assert list(k0["Line"]) == [12, 14] and list(k0["Sass"]) == ["LDG", "FFMA"]
    assert set(k0["Region"]) == {"k (n=1024)"}
    # A column per reason, the most sampled first; an instruction's missing reason is 0.
    reasons = list(frame.columns[frame.columns.get_loc("n") + 1 :])
    assert reasons[:2] == ["long_scoreboard", "long_scoreboard_not_issued"]
    assert list(k0["long_scoreboard"]) == pytest.approx([80.0, 10.0])
    assert list(k0["selected"]) == pytest.approx([0.0, 8.0])
    # Without line information: no file, line 0.
    k1 = frame[frame["n"] == 2048]
    assert k1["File"].isna().all() and list(k1["Line"]) == [0]
    assert list(k1["SharePct"]) == pytest.approx([100.0])


def test_the_sampled_instructions_go_through_json_and_parquet(sampled_lines, tmp_path):
    pytest.importorskip("pyarrow")
    for name in ("again.json", "again.parquet"):
        sampled_lines.save(tmp_path / name)
        back = kprof.load(tmp_path / name).source_dataframe()
        pd_testing = pytest.importorskip("pandas.testing")
        pd_testing.assert_frame_equal(back, sampled_lines.source_dataframe())


def test_results_without_sampled_instructions_are_refused(two_regions):
    with pytest.raises(OptionError, match="set:source") as info:
        two_regions.source_dataframe()
    assert info.value.option == "metrics"


def test_kprof_report_source_prints_each_regions_hottest_lines(sampled_lines, tmp_path, capsys):
    from kprof import report

    source = tmp_path / "k.cu"
    source.write_text("\n" * 11 + "    float v = data[i];  // the load\n")
    lines = [
        (0, "k", "kern", 0x40, "LDG", str(source), 12, "long_scoreboard", 80.0),
        (0, "k", "kern", 0x80, "FFMA", "/elsewhere/k.cu", 14, "selected", 20.0),
    ]
    path = tmp_path / "lines.json"
    with_source(sampled_lines, lines, tmp_path).save(path)
    assert report.main([str(path), "--source"]) == 0
    out = capsys.readouterr().out
    text = out[out.index("where the warps waited") :].splitlines()
    assert text[1] == "k (n=1024)  (kern)"
    assert "80%" in text[2] and "long_scoreboard" in text[2] and "k.cu:12" in text[2]
    assert re.search(r" LDG +\| float v = data\[i\];  // the load$", text[2]), text[2]
    assert "k.cu:14" in text[3] and text[3].endswith(" FFMA")  # the file is not here: no text


def test_kprof_report_source_without_samples_exits_2(two_regions, tmp_path, capsys):
    from kprof import report

    path = tmp_path / "sampled.json"
    two_regions.save(path)
    assert report.main([str(path), "--source"]) == 2
    assert capsys.readouterr().err.startswith("kprof report: --source: metrics=")


def test_the_html_source_section_shows_each_regions_hottest_lines(sampled_lines, tmp_path):
    from kprof import report
    from kprof._source_html import source_section

    source = tmp_path / "k.cu"
    source.write_text("\n" * 11 + "    float v = data[i] < 1;  // the load\n")
    lines = [
        (0, "k", "kern", 0x40, "LDG", str(source), 12, "long_scoreboard", 80.0),
        (0, "k", "kern", 0x80, "FFMA", "", 0, "selected", 20.0),
    ]
    results = with_source(sampled_lines, lines, tmp_path)
    section = source_section(results)
    assert section.startswith('<section id="source"><h2>Where the warps waited</h2>')
    rows = re.findall(r"<tr><td class=\"num\">(.*?)</tr>", section)
    assert len(rows) == 2
    assert "80%" in rows[0] and "long_scoreboard" in rows[0] and ">k.cu:12<" in rows[0]
    assert "float v = data[i] &lt; 1;  // the load" in rows[0]  # the line, escaped
    assert ">+0x80<" in rows[1] and "<code>FFMA</code>" in rows[1]
    page = report.render_html(results, plots=False, source="runs/k.json")
    assert page.index('<section id="stalls">') < page.index('<section id="source">')
    assert "<tr><th>file</th><td>runs/k.json</td></tr>" in page


def test_no_html_source_section_without_sampled_instructions(two_regions):
    from kprof._source_html import source_section

    assert source_section(two_regions) == ""


def test_merged_ranks_keep_their_own_instructions(sampled_lines, tmp_path):
    import json

    parts = []
    for rank, scale in ((0, 1.0), (1, 3.0)):
        doc = json.loads(sampled_lines.to_json())
        doc["session"].update(rank=rank, world_size=2, started_at=f"2026-12-07T00:00:0{rank}Z")
        doc["source"]["samples"] = [v * scale for v in doc["source"]["samples"]]
        path = tmp_path / f"rank{rank}.json"
        path.write_text(json.dumps(doc))
        parts.append(kprof.load(path))
    frame = kprof.merge(parts).source_dataframe()
    k0 = frame[(frame["Annotation"] == "k") & (frame["n"] == 1024) & (frame["PcOffset"] == 0x40)]
    assert list(k0["Rank"]) == [0, 1]
    assert list(k0["Samples"]) == pytest.approx([82.0, 246.0])
    assert list(k0["long_scoreboard"]) == pytest.approx([80.0, 240.0])  # each rank's own
    from kprof._source_html import source_section

    section = source_section(kprof.merge(parts))
    assert ">k (n=1024) (rank 0)</th>" in section and ">k (n=1024) (rank 1)</th>" in section


def test_the_notebook_view_shows_why_and_where_the_warps_waited(sampled_lines, two_regions):
    page = sampled_lines._repr_html_()
    assert page.index("</table>") < page.index("Why the warps waited")
    assert page.index("Why the warps waited") < page.index("Where the warps waited")
    assert "k.cu:12" in page and "long_scoreboard" in page
    plain = two_regions._repr_html_()  # reasons but no sampled instructions
    assert "Why the warps waited" in plain and "Where the warps waited" not in plain
