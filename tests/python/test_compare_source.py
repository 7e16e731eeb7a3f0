"""``kprof.compare(base, new, source=True)`` and ``kprof compare BASE NEW --source``: where two
profiles' warps waited, line by line, from the core's comparison of their sampled instructions
(made-up source tables here; the GPU tests sample real kernels)."""

from __future__ import annotations

import subprocess
import sys

import kprof
import pytest
from conftest import with_source
from kprof.errors import FormatError, OptionError

LOAD = ("LDG", "/src/k.cu", 12)


def line(config: int, place: tuple, reason: str, samples: float, offset: int = 0x40) -> tuple:
    sass, file, number = place
    return (config, "k", "kern", offset, sass, file, number, reason, samples)


@pytest.fixture
def before_and_after(two_regions, tmp_path):
    """The load at line 12 waited on memory for 80% of region k's samples; after, for 20%,
    and line 14 waits on math instead."""
    before = [
        line(0, LOAD, "long_scoreboard", 80.0),
        line(0, ("FFMA", "/src/k.cu", 14), "wait", 20.0, 0x80),
    ]
    after = [
        line(0, LOAD, "long_scoreboard", 20.0),
        line(0, ("FFMA", "/src/k.cu", 14), "wait", 60.0, 0x80),
        line(0, ("FFMA", "/src/k.cu", 14), "math_pipe_throttle", 20.0, 0x84),
    ]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = with_source(two_regions, before, tmp_path / "a")
    b = with_source(two_regions, after, tmp_path / "b")
    a.save(tmp_path / "a.json")
    b.save(tmp_path / "b.json")
    return tmp_path / "a.json", tmp_path / "b.json"


def test_each_line_with_both_shares_and_each_reasons_change(before_and_after):
    frame = kprof.compare(*before_and_after, source=True)
    assert list(frame["Line"]) == [12, 14]  # the largest change first: -60 and +60 points
    assert list(frame["BasePct"]) == pytest.approx([80.0, 20.0])
    assert list(frame["NewPct"]) == pytest.approx([20.0, 80.0])
    assert list(frame["ChangePts"]) == pytest.approx([-60.0, 60.0])
    assert set(frame["Region"]) == {"k (n=1024)"}
    assert list(frame["long_scoreboard"]) == pytest.approx([-60.0, 0.0])
    assert list(frame["wait"]) == pytest.approx([0.0, 40.0])
    assert list(frame["math_pipe_throttle"]) == pytest.approx([0.0, 20.0])
    assert "k.cu:12" in frame.attrs["table"]


def test_profile_results_compare_as_their_files_do(before_and_after):
    a, b = (kprof.load(p) for p in before_and_after)
    assert kprof.compare(a, b, source=True).equals(kprof.compare(*before_and_after, source=True))


def test_results_without_sampled_instructions_are_refused(two_regions, before_and_after):
    with pytest.raises(OptionError, match="set:source"):
        kprof.compare(two_regions, before_and_after[0], source=True)
    with pytest.raises(OptionError, match="True or False"):
        kprof.compare(*before_and_after, source="yes")


def test_no_region_in_both_is_nothing_to_compare(two_regions, before_and_after, tmp_path):
    other = with_source(two_regions, [(1, "k", "kern", 0, "LDG", "", 0, "wait", 5.0)], tmp_path)
    with pytest.raises(FormatError, match="nothing to compare"):
        kprof.compare(before_and_after[0], other, source=True)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kprof.cli", *args], capture_output=True, text=True, check=False
    )


def test_kprof_compare_source_prints_the_lines_after_the_rows(before_and_after):
    done = run_cli("compare", *map(str, before_and_after), "--source")
    if "kprof command" in done.stderr and done.returncode != 0:  # no command in this build
        pytest.skip(done.stderr.strip())
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.index("Annotation") < out.index("where the warps waited, BASE -> NEW")
    lines = out[out.index("where the warps waited") :].splitlines()
    assert lines[1] == "k (n=1024)"
    assert "80%" in lines[3] and "20%" in lines[3] and "-60" in lines[3]
    assert "k.cu:12" in lines[3] and "long_scoreboard -60" in lines[3]


def test_kprof_compare_source_without_samples_is_a_usage_error(two_regions, tmp_path):
    path = tmp_path / "plain.json"
    two_regions.save(path)
    done = run_cli("compare", str(path), str(path), "--source")
    if "kprof command" in done.stderr and done.returncode != 0 and "--source" not in done.stderr:
        pytest.skip(done.stderr.strip())
    assert done.returncode == 2
    assert "--source needs results of set:source" in done.stderr
